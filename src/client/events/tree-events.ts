import type { Client } from '@temporalio/client';
import type { SessionEvent } from '../../shared/events.js';
import { snapshotQuery } from '../../shared/messages.js';
import { readSessionEvents } from './session-events.js';
import { abortableCall } from './abortable-call.js';
import { boundedQuery } from '../access/query-failures.js';

/** An event of some session in a tree, with which session it came from. */
export interface TreeEvent {
  event: SessionEvent;
  session: { id: string; title: string; depth: number };
}

export interface TreeReadOptions {
  /** Events of the root session with a larger seq than this; sessions below are read from their first buffered event. */
  after?: number;
  signal?: AbortSignal;
  onMissed?: (sessionId: string, count: number) => void;
  /** Sub-agents already running when reading starts: read from their first buffered event ('start', the default) or only what they do from now on ('now'). */
  runningSubAgents?: 'start' | 'now';
  /** Called when reading one session fails (the rest of the tree goes on). */
  onError?: (sessionId: string, error: unknown) => void;
}

/**
 * The events of a session and of every sub-agent below it, as they happen: one reader per session, joined as each
 * event arrives. Sub-agents are found from the snapshot (those already running) and from `sub_agent_started` events.
 * Ends when every session read has ended, or when the signal aborts.
 */
export async function* readTreeEvents(client: Client, rootId: string, options: TreeReadOptions = {}): AsyncGenerator<TreeEvent> {
  // Readers stop when the caller aborts or stops iterating.
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) stop.abort();
  const signal = stop.signal;
  const queue: TreeEvent[] = [];
  const running = new Set<Promise<void>>();
  const known = new Set<string>();
  let readers = 0;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };

  const follow = (id: string, title: string, depth: number, from: number | 'now') => {
    if (known.has(id)) return;
    known.add(id);
    readers += 1;
    const session = { id, title, depth };
    const reader = (async () => {
      try {
        const snapshot = await abortableCall(client, signal, () =>
          boundedQuery(client, id, () => client.workflow.getHandle(id).query(snapshotQuery)),
        );
        session.title = snapshot.title;
        const after = from === 'now' ? snapshot.last_event_seq : from;
        for (const child of snapshot.children)
          follow(child.sub_session_id, child.title, depth + 1, options.runningSubAgents === 'now' ? 'now' : 0);
        const events = readSessionEvents(client, id, {
          after,
          signal,
          onMissed: (count) => options.onMissed?.(id, count),
        });
        for await (const event of events) {
          if (event.type === 'sub_agent_started') follow(event.sub_session_id, event.title, depth + 1, 0);
          queue.push({ event, session });
          notify();
        }
      } catch (error) {
        if (!signal.aborted) options.onError?.(id, error);
      } finally {
        readers -= 1;
        notify();
      }
    })();
    running.add(reader);
    void reader.finally(() => running.delete(reader));
  };

  follow(rootId, rootId, 0, options.after ?? 0);
  try {
    for (;;) {
      while (queue.length > 0) yield queue.shift()!;
      if (readers === 0 || signal.aborted) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          signal.removeEventListener('abort', done);
          resolve();
        };
        wake = done;
        signal.addEventListener('abort', done);
        if (queue.length > 0 || readers === 0 || signal.aborted) done();
      });
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    stop.abort();
    // Let every reader's calls end before the caller may close the connection under them.
    await Promise.allSettled([...running]);
  }
}
