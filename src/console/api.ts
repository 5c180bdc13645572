import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import type { ArborClient } from '../client/arbor-client.js';
import { ArborClientError } from '../client/errors.js';
import { listedSessionStatuses } from '../client/session-list.js';
import { checkSessionId } from '../client/session-id.js';
import { ApiError, parsed, type ApiRequest } from './api-input.js';
import { planOf } from './session-views.js';
import { automationsApi } from './automations-api.js';
import type { TreeViewSources } from './tree-views.js';

const listQuery = z.object({
  status: z.enum(listedSessionStatuses).optional(),
  owner: z.string().min(1).optional(),
  title: z.string().min(1).optional(),
});
const sendBody = z.object({ content: z.string().min(1, 'Write a message first.') });
const answerBody = z.object({ questionSetId: z.string().optional(), answers: z.record(z.string(), z.unknown()) });
// The SDK checks the limits (the same words as `arbor budget`); here only that each is a number, null, or left out.
const budgetBody = z.object({
  max_tokens: z.number('max_tokens is a number of tokens.').nullable().optional(),
  max_cost_usd: z.number('max_cost_usd is a number of US dollars.').nullable().optional(),
});

function sessionIdOf(raw: string | undefined): string {
  try {
    return checkSessionId(raw ?? '');
  } catch (error) {
    throw new ApiError(400, (error as Error).message);
  }
}

/** The console's JSON API: every read and action goes through the SDK, as a user's own program would. */
export async function handleApi(client: ArborClient, views: TreeViewSources, request: ApiRequest): Promise<unknown> {
  const [resource, rawId, part] = request.path;
  if (resource === 'automations') return automationsApi(client, request);
  if (resource === 'trees' && part === 'view' && request.method === 'GET') {
    const rootId = sessionIdOf(rawId);
    return views.of(rootId).view(sessionIdOf(request.query.get('member') ?? rootId));
  }
  if (resource === 'sessions' && rawId === undefined && request.method === 'GET') {
    const filters = parsed(listQuery, Object.fromEntries([...request.query].filter(([, value]) => value !== '')));
    return client.listSessions({ ...filters, limit: 100 });
  }
  if (resource !== 'sessions' || rawId === undefined) throw new ApiError(404, 'No such API.');
  const id = sessionIdOf(rawId);
  const answer = await sessionApi(client, views, id, `${request.method} ${part ?? ''}`, request);
  // An action may change the session with no event (a budget): the views ask it again rather than wait for one.
  if (request.method === 'POST') views.changed(id);
  return answer;
}

async function sessionApi(client: ArborClient, views: TreeViewSources, id: string, route: string, request: ApiRequest): Promise<unknown> {
  const session = client.session(id);
  switch (route) {
    case 'GET snapshot':
      return session.snapshot();
    case 'GET tree':
      return views.of(id).tree();
    case 'GET transcript': {
      const transcript = await session.transcript();
      return { transcript, plan: planOf(transcript) };
    }
    case 'GET questions':
      return session.pendingQuestions();
    case 'POST messages': {
      const { content } = parsed(sendBody, await request.body());
      return { message_id: await session.send(content) };
    }
    case 'POST answers': {
      const { questionSetId, answers } = parsed(answerBody, await request.body());
      return session.answer(answers as never, questionSetId ? { questionSetId } : {});
    }
    case 'POST stop':
      return session.stop();
    case 'POST budget': {
      const change = parsed(budgetBody, await request.body());
      return session.setBudget(change);
    }
    default:
      throw new ApiError(404, 'No such API.');
  }
}

export function apiErrorStatus(error: unknown): { status: number; message: string } {
  if (error instanceof ApiError) return { status: error.status, message: error.message };
  if (error instanceof ArborClientError) return { status: 422, message: error.message };
  return { status: 500, message: (error as Error).message ?? String(error) };
}

export async function readJsonBody(request: IncomingMessage, limit = 1_000_000): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new ApiError(413, 'The body is too large.');
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
  } catch {
    throw new ApiError(400, 'The body is not valid JSON.');
  }
}
