import type { Client } from '@temporalio/client';
import type { StreamItem } from '../../shared/stream.js';
import { snapshotQuery, streamQuery } from '../../shared/messages.js';
import { readSessionStream } from './session-stream.js';
import { currentCallStart } from './current-call.js';
import { abortableCall } from './abortable-call.js';
import { boundedQuery, isMissingQuery } from '../access/query-failures.js';
import type { HistoryWatches } from './shared-history-watch.js';
import { joinTreeReaders, type MemberReader, type TreeMember } from './tree-join.js';

/** A stream item of some session in a tree, with which session it came from. */
export interface TreeStreamItem {
  item: StreamItem;
  session: TreeMember;
}

export interface TreeStreamOptions {
  /** The root's items after this position, or 'now' (default); sub-agents started later are read from their start. */
  from?: number | 'now';
  signal?: AbortSignal;
  /**
   * Once this aborts, stop waiting for more: every session's reader reads what its session holds now (sub-agents it
   * announces included), then the stream ends. `signal` stops at once.
   */
  until?: AbortSignal;
  /** Leave out the root's items of this turn and earlier ones, and the sub-agents those turns started (default 0). */
  afterTurn?: number;
  /**
   * Where a session read from now on starts (the root with `from: 'now'`, and sub-agents already running when reading
   * starts): at its next item ('now', the default), or at the start of the model call it is in ('call'), so an answer
   * half written when reading starts comes whole.
   */
  runningFrom?: 'now' | 'call';
  /** Called when reading one session fails (the rest of the tree goes on). */
  onError?: (sessionId: string, error: unknown) => void;
  /** Share each session's history long poll with other readers of the tree (`treeEvents` given the same one). */
  watches?: HistoryWatches;
}

/**
 * The live stream of a session and of every sub-agent below it, joined as items arrive. A sub-agent is read from its
 * start as soon as its parent's stream announces it (`sub_agent_started`); those already running when reading starts
 * (from the snapshot of the root, or of a member read from now on) are read from now on.
 * Ends when the signal aborts or every session read has ended.
 */
export function readTreeStream(client: Client, rootId: string, options: TreeStreamOptions = {}): AsyncGenerator<TreeStreamItem> {
  const { until, afterTurn = 0 } = options;
  const earlier = (item: StreamItem, session: TreeMember) => session.depth === 0 && item.turn <= afterTurn;
  const read: MemberReader<TreeStreamItem, number | 'now'> = async function* (session, from, follow, signal) {
    const call = <T>(query: () => Promise<T>) => abortableCall(client, signal, () => boundedQuery(client, session.id, query));
    const handle = client.workflow.getHandle(session.id);
    const announce = (item: StreamItem) => {
      if (item.type === 'sub_agent_started') follow({ id: item.sub_session_id, title: item.title, depth: session.depth + 1 }, 0);
    };
    let after: number;
    try {
      // The position comes before the snapshot, so a sub-agent started between the two is announced in the stream.
      if (from !== 'now') after = from;
      else if (options.runningFrom === 'call') after = await currentCallStart(client, session.id, signal);
      else after = (await call(() => handle.query(streamQuery, { after: Number.MAX_SAFE_INTEGER }))).last_pos;
    } catch (error) {
      // A session on a worker from before streaming has no stream: nothing to read.
      if (isMissingQuery(error, streamQuery.name)) return;
      throw error;
    }
    const snapshot = from === 'now' || session.depth === 0 ? await call(() => handle.query(snapshotQuery)) : undefined;
    if (snapshot) session.title = snapshot.title;
    // What the session holds first: the sub-agents it announces are read from their start, the others from now on.
    for await (const item of readSessionStream(client, session.id, { from: after, follow: false, signal })) {
      after = item.pos;
      if (earlier(item, session)) continue;
      announce(item);
      yield { item, session };
    }
    for (const child of snapshot?.children ?? [])
      if (child.status === 'running') follow({ id: child.sub_session_id, title: child.title, depth: session.depth + 1 }, 'now');
    for await (const item of readSessionStream(client, session.id, {
      from: after,
      signal,
      ...(until ? { until } : {}),
      ...(options.watches ? { watches: options.watches } : {}),
    })) {
      if (earlier(item, session)) continue;
      announce(item);
      yield { item, session };
    }
  };
  return joinTreeReaders({ id: rootId, title: rootId, depth: 0 }, options.from ?? 'now', read, options);
}
