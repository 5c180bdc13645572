import { ServiceError } from '@temporalio/client';

/** gRPC codes of a query that no worker answered in time: CANCELLED, DEADLINE_EXCEEDED, UNAVAILABLE. */
const noAnswerCodes = new Set([1, 4, 14]);

/**
 * Whether a query failed only because no worker answered it in time (workers restarting, or all busy): asking again
 * later may succeed, unlike a query the workflow refused.
 */
export function isUnansweredQuery(error: unknown): boolean {
  if (!(error instanceof ServiceError)) return false;
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' && noAnswerCodes.has(code);
}
