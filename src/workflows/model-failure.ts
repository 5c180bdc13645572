import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';

/** A short sentence for the transcript explaining why a model call gave up. */
export function describeModelFailure(error: unknown): string {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure) return `The model call failed: ${cause.message}`;
  if (cause instanceof TimeoutFailure) return 'The model call failed: it timed out on every attempt.';
  if (cause instanceof Error) return `The model call failed: ${cause.message}`;
  return 'The model call failed.';
}
