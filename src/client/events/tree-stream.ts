import type { Client } from '@temporalio/client';
import type { StreamItem } from '../../shared/stream.js';
import { snapshotQuery } from '../../shared/messages.js';
import { readSessionStream } from './session-stream.js';
import { readTreeEvents } from './tree-events.js';
import { abortableCall } from './abortable-call.js';
import { boundedQuery } from '../access/query-failures.js';

/** A stream item of some session in a tree, with which session it came from. */
export interface TreeStreamItem {
  item: StreamItem;
  session: { id: string; title: string; depth: number };
}

export interface TreeStreamOptions {
  /** The root's items after this position, or 'now' (default); sub-agents started later are read from their start. */
  from?: number | 'now';
  signal?: AbortSignal;
  /** Called when reading one session fails (the rest of the tree goes on). */
  onError?: (sessionId: string, error: unknown) => void;
}

/**
 * The live stream of a session and of every sub-agent below it, joined as items arrive. Sub-agents are found as the
 * tree's events announce them (`sub_agent_started`), and those running when reading starts are read from now on.
 * Ends when the signal aborts or every session read has ended.
 */
export async function* readTreeStream(client: Client, rootId: string, options: TreeStreamOptions = {}): AsyncGenerator<TreeStreamItem> {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) stop.abort();
  const signal = stop.signal;
  const queue: TreeStreamItem[] = [];
  const running = new Set<Promise<void>>();
  const known = new Set<string>();
  let readers = 0;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const track = (work: Promise<void>) => {
    readers += 1;
    const tracked = work.finally(() => {
      readers -= 1;
      running.delete(tracked);
      notify();
    });
    running.add(tracked);
  };
  const failed = (id: string) => (error: unknown) => {
    if (!signal.aborted) options.onError?.(id, error);
  };

  const follow = (id: string, title: string, depth: number, from: number | 'now') => {
    if (known.has(id)) return;
    known.add(id);
    const session = { id, title, depth };
    track(
      (async () => {
        for await (const item of readSessionStream(client, id, { from, signal })) {
          queue.push({ item, session });
          notify();
        }
      })().catch(failed(id)),
    );
  };

  track(
    (async () => {
      const root = await abortableCall(client, signal, () =>
        boundedQuery(client, rootId, () => client.workflow.getHandle(rootId).query(snapshotQuery)),
      );
      follow(rootId, root.title, 0, options.from ?? 'now');
      for (const child of root.children) follow(child.sub_session_id, child.title, 1, 'now');
      const events = readTreeEvents(client, rootId, { after: root.last_event_seq, runningSubAgents: 'now', signal });
      for await (const { event, session } of events) {
        if (event.type === 'sub_agent_started') follow(event.sub_session_id, event.title, session.depth + 1, 0);
        else follow(session.id, session.title, session.depth, 'now');
      }
    })().catch(failed(rootId)),
  );

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
    await Promise.allSettled([...running]);
  }
}
