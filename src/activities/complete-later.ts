import { CompleteAsyncError, Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';

/**
 * Ends the running activity at once and completes it with `work`'s outcome when that settles, through the client.
 * The activity's worker slot is free while it waits, so a burst of writes queued for a busy store holds no slots
 * that model calls and other tools need. An outcome that comes after the attempt has ended (it timed out and was
 * retried, here or elsewhere) is not wanted, and the server's refusal of it is ignored.
 */
export function completeLater<T>(client: Client, work: Promise<T>): never {
  const { taskToken } = Context.current().info;
  work
    .then(
      (result) => client.activity.complete(taskToken, result),
      (error: unknown) => client.activity.fail(taskToken, error instanceof Error ? error : new Error(String(error))),
    )
    .catch(() => undefined);
  throw new CompleteAsyncError();
}
