import type { Client, WorkflowHandle } from '@temporalio/client';
import type { StreamItem } from '../../shared/stream.js';
import { streamQuery } from '../../shared/messages.js';
import { openHistoryWatch, type HistoryWatches, type MemberWatch } from './shared-history-watch.js';
import { EarlyStreamItems } from './early-stream-items.js';
import { abortableCall } from './abortable-call.js';
import { workflowTaskUnderWay } from './workflow-task-under-way.js';
import { boundedQuery, isMissingQuery } from '../access/query-failures.js';

export interface StreamReadOptions {
  /**
   * Items after this position (an item's `pos`, kept to resume after a reconnect), or 'now' for only what comes
   * next (default 0: every item the session still holds in memory).
   */
  from?: number | 'now';
  /** Keep waiting for new items until the session ends (default true); false returns what is there now. */
  follow?: boolean;
  signal?: AbortSignal;
  /** Share one history long poll with other readers of the same session (see HistoryWatches). */
  watches?: HistoryWatches;
  /** Once this aborts, the reader stops waiting for new items: it reads what the session holds now, then ends. */
  until?: AbortSignal;
  /** Called when items after the position were already dropped from the session's bounded ring. */
  onMissed?: () => void;
}

/**
 * A session's live stream items in order, each once: query the items after the last position read, then sleep on
 * the history long poll, which wakes as each batch the model call sends is recorded. A recorded batch is yielded from
 * the history at once, with the position the ring will give it, when the last page proves that position
 * (EarlyStreamItems); otherwise, and once a workflow task completes, the ring is queried again. Nothing is written to
 * the session by reading. Ends when the session has ended and every item has been read (or the signal aborts).
 */
export async function* readSessionStream(client: Client, sessionId: string, options: StreamReadOptions = {}): AsyncGenerator<StreamItem> {
  const handle: WorkflowHandle = client.workflow.getHandle(sessionId);
  const { signal } = options;
  const call = <T>(operation: () => Promise<T>): Promise<T> => abortableCall(client, signal, operation);
  const page = (after: number) => call(() => boundedQuery(client, sessionId, () => handle.query(streamQuery, { after })));
  let watch: MemberWatch | undefined;
  let running = true;
  const early = new EarlyStreamItems(sessionId, client.workflow.options.loadedDataConverter);
  try {
    let after = options.from === 'now' ? (await page(Number.MAX_SAFE_INTEGER)).last_pos : (options.from ?? 0);
    for (;;) {
      // The ring is queried while the run is described and its history's pages of the past are read.
      let reading = page(after);
      // Awaited below; a failure while the describe runs must not count as unhandled meanwhile.
      reading.catch(() => {});
      if (!watch && options.follow !== false) {
        const description = await call(() => handle.describe());
        running = description.status.name === 'RUNNING';
        watch = openHistoryWatch(client, sessionId, description.runId, options.watches);
        if (running) watch.prefetch(signal);
        // Ended: the page may have been read before its last items; it is read again, after the end.
        else reading = reading.then(() => page(after));
      }
      const read = await reading;
      if (read.missed) options.onMissed?.();
      for (const item of read.items) {
        yield item;
        after = item.pos;
      }
      if (read.items.length > 0 && after < read.last_pos) continue;
      if (options.follow === false || !running || options.until?.aborted) return;
      early.placeAt(read, watch!.runId);
      // Sleep on the history until a page must be read: batches recorded meanwhile are yielded from the history. A
      // page is read after the next wake when a workflow task is under way (a query would only wait for it).
      let mustRead = false;
      let deferred = false;
      for (;;) {
        const change = await waitForChange(watch!, signal, options.until);
        if (change === 'closed') {
          watch = undefined;
          early.forget();
        }
        if (change !== 'changed') break;
        const taken = await early.take(watch!.events, after, watch!.seenFrom);
        for (const item of taken.items) {
          yield item;
          after = item.pos;
        }
        mustRead ||= taken.mustRead;
        // Deferred once at most: under a steady flow of batches every wake may show a task under way.
        if (mustRead && (deferred || !workflowTaskUnderWay(watch!.events.at(-1)))) break;
        if (mustRead) deferred = true;
      }
    }
  } catch (error) {
    if (signal?.aborted) return;
    // A session on a worker from before streaming has no stream: nothing to read.
    if (isMissingQuery(error, streamQuery.name)) return;
    throw error;
  } finally {
    watch?.release();
  }
}

/** The history's next change, or 'until' as soon as `until` aborts (the reader then reads once more and ends). */
async function waitForChange(watch: MemberWatch, signal: AbortSignal | undefined, until: AbortSignal | undefined) {
  if (!until) return watch.next(signal);
  const either = signal ? AbortSignal.any([signal, until]) : until;
  try {
    return await watch.next(either);
  } catch (error) {
    if (until.aborted && !signal?.aborted) return 'until';
    throw error;
  }
}
