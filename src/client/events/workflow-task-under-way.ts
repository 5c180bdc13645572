import type proto from '@temporalio/proto';
import type { MemberWatch } from './shared-history-watch.js';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

/**
 * Whether a history that ends with `last` has a workflow task to come or under way: scheduled, started, or one that
 * failed or timed out (the server schedules it again). A query sent then waits on the server for that task, and a
 * query that meets a task in flight can wait a second or two more before it is answered (measured on the dev server);
 * the task's completion appends events, so a reader on the history long poll waits for that wake instead.
 */
export function workflowTaskUnderWay(last: HistoryEvent | undefined): boolean {
  return Boolean(
    last &&
    (last.workflowTaskScheduledEventAttributes ||
      last.workflowTaskStartedEventAttributes ||
      last.workflowTaskFailedEventAttributes ||
      last.workflowTaskTimedOutEventAttributes),
  );
}

/**
 * The history's next change, or the one after it when that shows a workflow task under way (its events come with its
 * completion, so a reader queries then); 'closed' when the run has ended. One change is skipped at most: while signals
 * arrive steadily (a streamed answer) a history may show a task under way at every wake, and a reader must not wait
 * for a quiet that does not come.
 */
export async function nextQuietChange(watch: MemberWatch, signal?: AbortSignal): Promise<'changed' | 'closed'> {
  const change = await watch.next(signal);
  if (change === 'closed' || !workflowTaskUnderWay(watch.events.at(-1))) return change;
  return watch.next(signal);
}
