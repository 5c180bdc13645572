import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorAnswer, type ModelAnswer } from './model-answers.js';
import type { ScriptedModel } from './scripted-model.js';
import { sessionIdHeader } from '../activities/model-settings.js';

const completionsPath = /\/chat\/completions$/;

/**
 * A fetch that answers the `openai` client's requests from a scripted model in this process: nothing listens on a
 * port, yet the client parses the answers, and Arbor handles its errors, exactly as for a real endpoint.
 */
export function inProcessFetch(model: ScriptedModel): typeof fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    signal?.throwIfAborted();
    const bodyText = typeof init?.body === 'string' ? init.body : input instanceof Request ? await input.text() : '';
    const sessionId =
      new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).get(sessionIdHeader) ?? undefined;
    const answer = completionsPath.test(new URL(url).pathname)
      ? await answerOrAbort(model, bodyText, sessionId, signal ?? undefined)
      : errorAnswer(404, `no route ${new URL(url).pathname}`);
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  };
}

async function answerOrAbort(
  model: ScriptedModel,
  bodyText: string,
  sessionId: string | undefined,
  signal: AbortSignal | undefined,
): Promise<ModelAnswer> {
  const answer = model.answer(JSON.parse(bodyText), sessionId);
  if (!signal) return answer;
  return Promise.race([
    answer,
    new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })),
  ]);
}

/**
 * An OpenAI-compatible chat-completions server on loopback that answers from a scripted model: the real `openai`
 * client talks to it over HTTP, for tests of the whole network path.
 */
export class ScriptedOpenAIServer {
  private server: Server | undefined;

  constructor(readonly model: ScriptedModel) {}

  /** `http://127.0.0.1:<port>/v1`, for the worker's `baseURL`. */
  get baseURL(): string {
    const address = this.server?.address() as AddressInfo | null | undefined;
    if (!address) throw new Error('The scripted OpenAI server is not started: await start() first.');
    return `http://127.0.0.1:${address.port}/v1`;
  }

  async start(): Promise<this> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    let answer: ModelAnswer;
    if (request.method !== 'POST' || !completionsPath.test(request.url ?? '')) answer = errorAnswer(404, `no route ${request.url}`);
    else {
      try {
        const sessionId = request.headers[sessionIdHeader];
        answer = await this.model.answer(
          JSON.parse(Buffer.concat(chunks).toString('utf8')),
          typeof sessionId === 'string' ? sessionId : undefined,
        );
      } catch (error) {
        answer = errorAnswer(400, `the request body is not JSON: ${String(error)}`);
      }
    }
    if (!response.destroyed) response.writeHead(answer.status, answer.headers).end(answer.body);
  }
}
