import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { completionBody } from '../../src/testing/model-answers.js';

/**
 * What the fake answers to one request: a completion (content and/or tool calls), an HTTP error, a body written as
 * given (malformed JSON, HTML, a completion of the wrong shape), or a connection reset before any answer.
 */
export type FakeReply =
  | {
      content?: string | null;
      toolCalls?: { name: string; arguments: string; id?: string }[];
      delayMs?: number;
      /** Answers only once this settles: holds a turn in its model call for as long as a test needs. */
      after?: Promise<unknown>;
      /**
       * To a request with `stream: true`: the content as these chunks of server-sent events, `chunkDelayMs` apart
       * (without: the whole content in one chunk when `fake.streams` is set, else a plain JSON body).
       */
      chunks?: string[];
      chunkDelayMs?: number;
      /** The usage a plain JSON answer reports (OpenAI's `usage` object); absent: none. */
      usage?: { prompt_tokens: number; completion_tokens: number };
      /** Streamed: the last chunk is written only once this settles (a test proves it read the others first). */
      beforeLastChunk?: Promise<unknown>;
    }
  | { status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number }
  | { raw: string; status?: number; contentType?: string; delayMs?: number }
  | { reset: true; delayMs?: number };

export interface RecordedRequest {
  /** When the request arrived (Date.now()). */
  at: number;
  path: string;
  headers: IncomingMessage['headers'];
  /** When the first chunk of a streamed answer was written (Date.now()). */
  firstChunkAt?: number;
  /** When the caller closed the connection before the answer was complete (Date.now()). */
  abortedAt?: number;
  body: {
    model: string;
    stream?: boolean;
    messages: {
      role: string;
      content: string | null;
      tool_calls?: { id: string; function: { name: string; arguments: string } }[];
      tool_call_id?: string;
    }[];
    tools?: { type: string; function: { name: string; description: string; parameters: unknown } }[];
  };
}

/**
 * An OpenAI-compatible chat-completions server on loopback. Replies come from a script, in order, falling back to
 * `fallback` when the script is empty; every request is recorded for assertions.
 */
export class FakeOpenAI {
  readonly requests: RecordedRequest[] = [];
  private readonly script: FakeReply[] = [];
  private server: Server | undefined;
  private counter = 0;
  fallback: (request: RecordedRequest) => FakeReply = () => ({ content: 'fallback answer' });
  /** The models `GET /models` lists; unset, that route answers 404 like any other unknown one. */
  models: string[] | undefined;
  /** Whether a request with `stream: true` is answered with server-sent events even by replies without `chunks`. */
  streams = false;
  /** Whether a request with `stream: true` is refused with a 400 that names `stream`, as some endpoints do. */
  refusesStreaming = false;

  get baseURL(): string {
    const address = this.server?.address() as AddressInfo | undefined;
    if (!address) throw new Error('fake OpenAI server is not started');
    return `http://127.0.0.1:${address.port}/v1`;
  }

  /** Queues replies for the next requests. */
  reply(...replies: FakeReply[]): this {
    this.script.push(...replies);
    return this;
  }

  /** Requests made for the given session (matched on the first user message's text). */
  requestsFor(instruction: string): RecordedRequest[] {
    return this.requests.filter((request) => request.body.messages.find((message) => message.role === 'user')?.content === instruction);
  }

  async start(): Promise<this> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.method === 'GET' && request.url?.endsWith('/models') && this.models) {
      const data = this.models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' }));
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data }));
      return;
    }
    if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
      response
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `no route ${request.url}` } }));
      return;
    }
    const recorded: RecordedRequest = {
      at: Date.now(),
      path: request.url,
      headers: request.headers,
      body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
    };
    this.requests.push(recorded);
    response.once('close', () => {
      if (!response.writableFinished) recorded.abortedAt = Date.now();
    });
    if (recorded.body.stream === true && this.refusesStreaming) {
      response
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: "'stream' is not supported by this endpoint", type: 'invalid_request_error' } }));
      return;
    }
    const reply = this.script.shift() ?? this.fallback(recorded);
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if ('after' in reply && reply.after) await reply.after;
    if (response.destroyed) return;
    if ('reset' in reply) {
      request.socket.destroy();
      return;
    }
    if ('raw' in reply) {
      response.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'application/json' }).end(reply.raw);
      return;
    }
    if ('status' in reply) {
      response
        .writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers })
        .end(JSON.stringify(reply.body ?? { error: { message: `fake error ${reply.status}`, type: 'fake' } }));
      return;
    }
    const id = ++this.counter;
    if (recorded.body.stream === true && (reply.chunks || this.streams)) {
      await writeEvents(response, recorded, recorded.body.model, id, reply);
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(
      completionBody(recorded.body.model, id, {
        content: reply.content ?? null,
        ...(reply.toolCalls ? { toolCalls: reply.toolCalls } : {}),
        ...(reply.usage ? { usage: reply.usage } : {}),
      }),
    );
  }
}

/** A streamed chat completion as OpenAI writes it: role, content chunks, tool calls, finish, usage, [DONE]. */
async function writeEvents(
  response: ServerResponse,
  recorded: RecordedRequest,
  model: string,
  id: number,
  reply: {
    content?: string | null;
    toolCalls?: { name: string; arguments: string; id?: string }[];
    chunks?: string[];
    chunkDelayMs?: number;
    beforeLastChunk?: Promise<unknown>;
  },
): Promise<void> {
  const base = { id: `chatcmpl-${id}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
  const send = (choices: unknown[], extra: Record<string, unknown> = {}) => {
    recorded.firstChunkAt ??= Date.now();
    response.write(`data: ${JSON.stringify({ ...base, choices, ...extra })}\n\n`);
  };
  const pause = () => (reply.chunkDelayMs ? new Promise((resolve) => setTimeout(resolve, reply.chunkDelayMs)) : Promise.resolve());
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  send([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
  const chunks = reply.chunks ?? (reply.content ? [reply.content] : []);
  for (const [index, text] of chunks.entries()) {
    if (index > 0) await pause();
    if (index > 0 && index === chunks.length - 1 && reply.beforeLastChunk) await reply.beforeLastChunk;
    if (response.destroyed) return;
    send([{ index: 0, delta: { content: text }, finish_reason: null }]);
  }
  for (const [index, call] of (reply.toolCalls ?? []).entries()) {
    await pause();
    const callId = call.id ?? `call_${id}_${index}`;
    send([{ index: 0, delta: { tool_calls: [{ index, id: callId, type: 'function', function: { name: call.name, arguments: '' } }] } }]);
    send([{ index: 0, delta: { tool_calls: [{ index, function: { arguments: call.arguments } }] } }]);
  }
  if (response.destroyed) return;
  send([{ index: 0, delta: {}, finish_reason: reply.toolCalls?.length ? 'tool_calls' : 'stop' }]);
  send([], { usage: { prompt_tokens: 1, completion_tokens: chunks.length, total_tokens: chunks.length + 1 } });
  response.end('data: [DONE]\n\n');
}
