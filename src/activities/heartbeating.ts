import { Context } from '@temporalio/activity';

/**
 * Runs an activity's work while heartbeating every `everyMs`: an activity learns that it was cancelled (an interrupt,
 * a stop) only from the answer to a heartbeat, and then its `cancellationSignal` aborts what it is doing.
 */
export async function whileHeartbeating<T>(work: () => Promise<T>, everyMs = 2_000): Promise<T> {
  const context = Context.current();
  const beat = setInterval(() => context.heartbeat(), everyMs);
  try {
    return await work();
  } finally {
    clearInterval(beat);
  }
}
