import type { Client, WorkflowHandle } from '@temporalio/client';
import type { SessionEvent } from '../../shared/events.js';
import { eventsQuery } from '../../shared/messages.js';
import { openHistoryWatch, type HistoryWatches, type MemberWatch } from './shared-history-watch.js';
import { abortableCall } from './abortable-call.js';
import { nextQuietChange } from './workflow-task-under-way.js';
import { boundedQuery } from '../access/query-failures.js';

export interface EventReadOptions {
  /** Read events with a larger seq than this (default 0: everything the session still buffers). */
  after?: number;
  /** Keep waiting for new events until the session ends (default true); false returns what is there now. */
  follow?: boolean;
  signal?: AbortSignal;
  /** Share one history long poll with other readers of the same session (see HistoryWatches). */
  watches?: HistoryWatches;
  /** Called when events after `after` were already dropped from the session's bounded buffer. */
  onMissed?: (count: number) => void;
}

/**
 * A session's events in order, each once: query the buffered events after the last seq read, then sleep on the
 * history long poll until the session changes. Ends when the session has ended and every event has been read.
 */
export async function* readSessionEvents(client: Client, sessionId: string, options: EventReadOptions = {}): AsyncGenerator<SessionEvent> {
  const handle: WorkflowHandle = client.workflow.getHandle(sessionId);
  const { signal } = options;
  const call = <T>(operation: () => Promise<T>): Promise<T> => abortableCall(client, signal, operation);
  let after = options.after ?? 0;
  let watch: MemberWatch | undefined;
  let running = true;
  try {
    for (;;) {
      if (!watch && options.follow !== false) {
        const description = await call(() => handle.describe());
        running = description.status.name === 'RUNNING';
        watch = openHistoryWatch(client, sessionId, description.runId, options.watches);
        // A task under way now: its events come with its completion (the history read up to its end first).
        if (running && description.raw.pendingWorkflowTask) {
          watch.prefetch(signal);
          if ((await nextQuietChange(watch, signal)) === 'closed') {
            watch.release();
            watch = undefined;
            continue;
          }
        }
      }
      const page = await call(() => boundedQuery(client, sessionId, () => handle.query(eventsQuery, { after })));
      if (page.missed > 0) options.onMissed?.(page.missed);
      for (const event of page.events) {
        yield event;
        after = event.seq;
      }
      if (page.events.length > 0 && after < page.last_seq) continue;
      if (options.follow === false || !running) return;
      if ((await nextQuietChange(watch!, signal)) === 'closed') watch = undefined;
    }
  } catch (error) {
    if (signal?.aborted) return;
    throw error;
  } finally {
    watch?.release();
  }
}
