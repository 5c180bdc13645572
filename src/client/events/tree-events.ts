import type { Client } from '@temporalio/client';
import type { SessionEvent } from '../../shared/events.js';
import { snapshotQuery } from '../../shared/messages.js';
import { readSessionEvents } from './session-events.js';
import { abortableCall } from './abortable-call.js';
import { boundedQuery } from '../access/query-failures.js';
import type { HistoryWatches } from './shared-history-watch.js';
import { joinTreeReaders, type MemberReader, type TreeMember } from './tree-join.js';

/** An event of some session in a tree, with which session it came from. */
export interface TreeEvent {
  event: SessionEvent;
  session: TreeMember;
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
  /** Share each session's history long poll with other readers of the tree (`streamTree` given the same one). */
  watches?: HistoryWatches;
}

/**
 * The events of a session and of every sub-agent below it, as they happen: one reader per session, joined as each
 * event arrives. Sub-agents are found from the snapshot (those already running) and from `sub_agent_started` events.
 * Ends when every session read has ended, or when the signal aborts.
 */
export function readTreeEvents(client: Client, rootId: string, options: TreeReadOptions = {}): AsyncGenerator<TreeEvent> {
  const read: MemberReader<TreeEvent, number | 'now'> = async function* (session, from, follow, signal) {
    const snapshot = await abortableCall(client, signal, () =>
      boundedQuery(client, session.id, () => client.workflow.getHandle(session.id).query(snapshotQuery)),
    );
    session.title = snapshot.title;
    const below = (id: string, title: string) => ({ id, title, depth: session.depth + 1 });
    for (const child of snapshot.children) follow(below(child.sub_session_id, child.title), options.runningSubAgents === 'now' ? 'now' : 0);
    const events = readSessionEvents(client, session.id, {
      after: from === 'now' ? snapshot.last_event_seq : from,
      signal,
      ...(options.watches ? { watches: options.watches } : {}),
      onMissed: (count) => options.onMissed?.(session.id, count),
    });
    for await (const event of events) {
      if (event.type === 'sub_agent_started') follow(below(event.sub_session_id, event.title), 0);
      yield { event, session };
    }
  };
  return joinTreeReaders({ id: rootId, title: rootId, depth: 0 }, options.after ?? 0, read, options);
}
