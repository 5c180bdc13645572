import { QueryNotRegisteredError, ServiceError, type Client } from '@temporalio/client';
import { ArborClientError } from '../errors.js';
import { inQueryLane } from './query-lanes.js';

/** How long a query may go unanswered before it counts as unanswered, as the server itself counts one no worker takes. */
export const defaultQueryTimeoutMs = 30_000;

/** gRPC codes of a query that no worker answered in time: CANCELLED, DEADLINE_EXCEEDED, UNAVAILABLE. */
const noAnswerCodes = new Set([1, 4, 14]);
const deadlineExceeded = 4;

/** A query that got no answer within its deadline: no worker took it, or the answer was lost on its way. */
export class UnansweredQueryError extends ArborClientError {
  constructor(workflowId: string, timeoutMs: number, options: { cause: unknown }) {
    super(
      `No answer from ${workflowId} within ${formatSeconds(timeoutMs)}: no worker answered the query, or its answer was lost on the way. ` +
        'Is an Arbor worker running against this Temporal server and task queue (`arbor doctor` lists those polling it)? ' +
        'Asking again may succeed.',
      options,
    );
  }
}

/** Returns a query timeout given by a caller, or the default; throws a clear error for one that is not a positive number. */
export function checkQueryTimeout(timeoutMs: number | undefined): number {
  if (timeoutMs === undefined) return defaultQueryTimeoutMs;
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new ArborClientError(
      `queryTimeoutMs must be a positive number of milliseconds, not ${typeof timeoutMs === 'number' ? String(timeoutMs) : JSON.stringify(timeoutMs)}.`,
    );
  }
  return timeoutMs;
}

/**
 * Whether a query failed only because no worker answered it in time (workers restarting, or all busy): asking again
 * later may succeed, unlike a query the workflow refused.
 */
export function isUnansweredQuery(error: unknown): boolean {
  if (error instanceof UnansweredQueryError) return true;
  return error instanceof ServiceError && noAnswerCodes.has(grpcCode(error) ?? -1);
}

/**
 * Runs `query` (one query call) with a deadline, so an answer lost on a broken stream cannot hang the caller: without
 * one, a gRPC call waits for ever. A caller's own shorter deadline (`client.withDeadline`) is kept. A client marked
 * by `sendQueriesOneAtATime` (the console's) sends one workflow's queries one at a time (`inQueryLane`), unless
 * `oneAtATime` is false: a workflow many callers read at once (a memory store) answers them side by side.
 */
export async function boundedQuery<T>(
  client: Client,
  workflowId: string,
  query: () => Promise<T>,
  timeoutMs = defaultQueryTimeoutMs,
  { oneAtATime = true }: { oneAtATime?: boolean } = {},
): Promise<T> {
  const send = () => deadlineQuery(client, workflowId, query, timeoutMs);
  return oneAtATime ? inQueryLane(client, workflowId, send) : send();
}

async function deadlineQuery<T>(client: Client, workflowId: string, query: () => Promise<T>, timeoutMs: number): Promise<T> {
  const own = Date.now() + timeoutMs;
  const outer = (
    client.connection as { callContextStorage?: { getStore(): { deadline?: number | Date } | undefined } }
  ).callContextStorage?.getStore()?.deadline;
  const deadline = outer === undefined ? own : Math.min(own, Number(outer));
  try {
    return await client.withDeadline(deadline, query);
  } catch (error) {
    if (error instanceof ServiceError && deadline === own && endedByOwnDeadline(error, own)) {
      throw new UnansweredQueryError(workflowId, timeoutMs, { cause: error });
    }
    throw error;
  }
}

/**
 * Whether a query failed because the workflow registers no handler of that name (a worker from before it). The dev
 * server reports this as INVALID_ARGUMENT (QueryNotRegisteredError), the time-skipping test server as INTERNAL.
 */
export function isMissingQuery(error: unknown, queryName: string): boolean {
  if (!(error instanceof QueryNotRegisteredError || error instanceof ServiceError)) return false;
  const text = `${error.message} ${(error.cause as Error | undefined)?.message ?? ''}`;
  return text.includes(`did not register a handler for ${queryName}.`);
}

/** How close to its deadline a cancelled or unavailable call counts as ended by that deadline. */
const deadlineMarginMs = 100;

/**
 * Whether a call failed because its own deadline ran out: DEADLINE_EXCEEDED, or a cancelled or unavailable call once
 * that deadline has (all but) passed. The server is sent the deadline too, and may give up on the query at that moment
 * in its own words before the client's timer fires (seen once in CI).
 */
function endedByOwnDeadline(error: ServiceError, deadline: number): boolean {
  const code = grpcCode(error);
  if (code === deadlineExceeded) return true;
  return code !== undefined && noAnswerCodes.has(code) && Date.now() >= deadline - deadlineMarginMs;
}

function grpcCode(error: ServiceError): number | undefined {
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
