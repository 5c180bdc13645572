import type { SessionHandle } from '../client/session-handle.js';
import type { TreeEvent } from '../client/events/tree-events.js';

/** One item a console page receives live: a tree event, or a note that a member could not be read. */
export type FeedItem =
  { kind: 'event'; event: TreeEvent['event']; session: TreeEvent['session'] } | { kind: 'error'; session_id: string; message: string };

/** A position in a feed: `epoch` names the feed (a restarted server starts a new one), `index` counts its items. */
export interface FeedPosition {
  epoch: string;
  index: number;
}

type Listener = (item: FeedItem, index: number) => void;

/**
 * Every event of one session tree, read once by the SDK's tree reader and shared by every tab that watches the tree.
 * Items are kept, so a tab that reconnects with its last position gets what it missed, and a tab of a feed it does not
 * know (the server restarted) gets everything again: the page drops events it has by session and seq.
 *
 * The one seam for more live sources (streamed answer text, usage): push their items through `publish`.
 */
export class TreeFeed {
  readonly epoch: string;
  private readonly items: FeedItem[] = [];
  private readonly listeners = new Set<Listener>();
  private readonly stop = new AbortController();
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    session: SessionHandle,
    epoch: string,
    private readonly idleMs: number,
    private readonly onIdle: () => void,
  ) {
    this.epoch = epoch;
    void this.read(session);
  }

  private async read(session: SessionHandle): Promise<void> {
    const events = session.treeEvents({
      signal: this.stop.signal,
      onError: (sessionId, error) => this.publish({ kind: 'error', session_id: sessionId, message: (error as Error).message }),
    });
    try {
      for await (const { event, session: member } of events) this.publish({ kind: 'event', event, session: member });
    } catch (error) {
      if (!this.stop.signal.aborted) this.publish({ kind: 'error', session_id: session.id, message: (error as Error).message });
    }
  }

  publish(item: FeedItem): void {
    this.items.push(item);
    const index = this.items.length;
    for (const listener of this.listeners) listener(item, index);
  }

  /** Calls `listener` with every item after `from` (all of them for another epoch), then with each new one. */
  subscribe(from: FeedPosition | undefined, listener: Listener): () => void {
    clearTimeout(this.idleTimer);
    const start = from && from.epoch === this.epoch ? Math.min(from.index, this.items.length) : 0;
    for (let index = start; index < this.items.length; index += 1) listener(this.items[index]!, index + 1);
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.idleTimer = setTimeout(() => this.close(), this.idleMs).unref();
    };
  }

  close(): void {
    clearTimeout(this.idleTimer);
    this.stop.abort();
    this.listeners.clear();
    this.onIdle();
  }
}

/** The feeds of the trees being watched, one per root session, closed a while after their last tab leaves. */
export class TreeFeeds {
  private readonly feeds = new Map<string, TreeFeed>();
  private counter = 0;

  constructor(
    private readonly sessionOf: (rootId: string) => SessionHandle,
    private readonly serverEpoch: string,
    private readonly idleMs = 60_000,
  ) {}

  of(rootId: string): TreeFeed {
    let feed = this.feeds.get(rootId);
    if (!feed) {
      this.counter += 1;
      const created: TreeFeed = new TreeFeed(this.sessionOf(rootId), `${this.serverEpoch}.${this.counter}`, this.idleMs, () => {
        if (this.feeds.get(rootId) === created) this.feeds.delete(rootId);
      });
      feed = created;
      this.feeds.set(rootId, feed);
    }
    return feed;
  }

  get size(): number {
    return this.feeds.size;
  }

  closeAll(): void {
    for (const feed of [...this.feeds.values()]) feed.close();
  }
}

export function parsePosition(lastEventId: string | undefined): FeedPosition | undefined {
  const match = /^(.+):(\d+)$/.exec(lastEventId ?? '');
  return match ? { epoch: match[1]!, index: Number(match[2]) } : undefined;
}
