import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import type { ArborClient } from '../client/arbor-client.js';
import { ArborClientError } from '../client/errors.js';
import { listedSessionStatuses } from '../client/session-list.js';
import { checkSessionId } from '../client/session-id.js';
import { planOf } from './session-views.js';
import { treeMembers } from './tree-members.js';

/** A refusal the page shows as it is: the SDK's own words (the CLI prints the same). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface ApiRequest {
  method: string;
  path: string[];
  query: URLSearchParams;
  body: () => Promise<unknown>;
}

const listQuery = z.object({
  status: z.enum(listedSessionStatuses).optional(),
  owner: z.string().min(1).optional(),
  title: z.string().min(1).optional(),
});
const sendBody = z.object({ content: z.string().min(1, 'Write a message first.') });
const answerBody = z.object({ questionSetId: z.string().optional(), answers: z.record(z.string(), z.unknown()) });

function parsed<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new ApiError(400, result.error.issues.map((issue) => issue.message).join('; '));
  return result.data;
}

function sessionIdOf(raw: string | undefined): string {
  try {
    return checkSessionId(raw ?? '');
  } catch (error) {
    throw new ApiError(400, (error as Error).message);
  }
}

/** The console's JSON API: every read and action goes through the SDK, as a user's own program would. */
export async function handleApi(client: ArborClient, request: ApiRequest): Promise<unknown> {
  const [resource, rawId, part] = request.path;
  if (resource === 'sessions' && rawId === undefined && request.method === 'GET') {
    const filters = parsed(listQuery, Object.fromEntries([...request.query].filter(([, value]) => value !== '')));
    return client.listSessions({ ...filters, limit: 100 });
  }
  if (resource !== 'sessions' || rawId === undefined) throw new ApiError(404, 'No such API.');
  const id = sessionIdOf(rawId);
  const session = client.session(id);
  const route = `${request.method} ${part ?? ''}`;
  switch (route) {
    case 'GET snapshot':
      return session.snapshot();
    case 'GET tree':
      return treeMembers(client, id);
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
