import type { SessionHandle } from '../client/session-handle.js';
import type { TreeEvent } from '../client/events/tree-events.js';
import type { TreeStreamItem } from '../client/events/tree-stream.js';
import { HistoryWatches } from '../client/events/shared-history-watch.js';
import { FeedRing, type FeedLimits } from './feed-ring.js';

/**
 * One item a console page receives live: a tree event, a stream item (answer text as the model writes it), a note
 * that a member could not be read, or `reset`: the items after the tab's position were dropped by the feed's memory
 * cap, so the tab reads its state again and goes on from here.
 */
export type FeedItem =
  | { kind: 'event'; event: TreeEvent['event']; session: TreeEvent['session'] }
  | { kind: 'stream'; item: TreeStreamItem['item']; session: TreeStreamItem['session'] }
  | { kind: 'error'; session_id: string; message: string }
  | { kind: 'reset' };

/** A position in a feed: `epoch` names the feed (a restarted server starts a new one), `index` counts its items. */
export interface FeedPosition {
  epoch: string;
  index: number;
}

type Listener = (item: FeedItem, index: number) => void;

/**
 * Every event and stream item of one session tree, read once by the SDK's tree readers and shared by every tab that
 * watches the tree. The newest items are kept (up to the feed's limits), so a tab that reconnects with its last
 * position gets what it missed, and a tab of a feed it does not know (the server restarted) gets everything kept: the
 * page drops events it has by session and seq.
 */
export class TreeFeed {
  readonly epoch: string;
  private readonly ring: FeedRing<FeedItem>;
  private readonly listeners = new Set<Listener>();
  private readonly stop = new AbortController();
  private readonly observers = new Set<(item: FeedItem) => void>();
  private readonly closeHandlers: (() => void)[] = [];
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly reading: Promise<unknown>;
  /** One history long poll per member, shared by the tree's event reader and its stream reader. */
  private readonly watches = new HistoryWatches();

  constructor(
    session: SessionHandle,
    epoch: string,
    private readonly idleMs: number,
    private readonly onIdle: () => void,
    limits?: Partial<FeedLimits>,
  ) {
    this.epoch = epoch;
    this.ring = new FeedRing(limits);
    this.reading = Promise.allSettled([this.readEvents(session), this.readStream(session)]);
  }

  private async readEvents(session: SessionHandle): Promise<void> {
    const events = session.treeEvents({ signal: this.stop.signal, onError: this.failed, watches: this.watches });
    try {
      for await (const { event, session: member } of events) this.publish({ kind: 'event', event, session: member });
    } catch (error) {
      this.failed(session.id, error);
    }
  }

  /**
   * The tree's answers as they are written: the root's whole ring, and a running sub-agent's from the start of its
   * model call (what was written before is in the transcript).
   */
  private async readStream(session: SessionHandle): Promise<void> {
    const items = session.streamTree({
      from: 0,
      runningFrom: 'call',
      signal: this.stop.signal,
      onError: this.failed,
      watches: this.watches,
    });
    try {
      for await (const { item, session: member } of items) this.publish({ kind: 'stream', item, session: member });
    } catch (error) {
      this.failed(session.id, error);
    }
  }

  private readonly failed = (sessionId: string, error: unknown) => {
    if (!this.stop.signal.aborted) this.publish({ kind: 'error', session_id: sessionId, message: (error as Error).message });
  };

  publish(item: FeedItem): void {
    const index = this.ring.push(item);
    for (const observer of this.observers) observer(item);
    for (const listener of this.listeners) listener(item, index);
  }

  /** Sees every item as it is published (the server's caches learn from it which members changed). */
  observe(observer: (item: FeedItem) => void): void {
    this.observers.add(observer);
  }

  /**
   * Calls `listener` with every kept item after `from` (all of them for another epoch), then with each new one. A
   * position older than the oldest kept item gets a `reset` first.
   */
  subscribe(from: FeedPosition | undefined, listener: Listener): () => void {
    clearTimeout(this.idleTimer);
    const after = from && from.epoch === this.epoch ? from.index : 0;
    if (from && from.epoch === this.epoch && after < this.ring.first - 1) listener({ kind: 'reset' }, this.ring.first - 1);
    for (const [item, index] of this.ring.after(after)) listener(item, index);
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.idleTimer = setTimeout(() => void this.close(), this.idleMs).unref();
    };
  }

  /** The history long polls open now for this tree, the readers waiting on them, and the runs they watch. */
  get longPolls(): { open: number; waiting: number; watched: number } {
    return { open: this.watches.polling, waiting: this.watches.waiting, watched: this.watches.watched };
  }

  get listening(): number {
    return this.listeners.size;
  }

  /** How many items the feed keeps now, and their size in characters of JSON. */
  get kept(): { items: number; chars: number } {
    return { items: this.ring.size, chars: this.ring.chars };
  }

  onClose(handler: () => void): void {
    this.closeHandlers.push(handler);
  }

  /** Stops reading; resolves once the readers have let go of their calls. */
  close(): Promise<void> {
    clearTimeout(this.idleTimer);
    this.stop.abort();
    this.listeners.clear();
    this.observers.clear();
    this.onIdle();
    for (const handler of this.closeHandlers.splice(0)) handler();
    return this.reading.then(() => undefined);
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
    private readonly limits?: Partial<FeedLimits>,
    private readonly onOpen: (rootId: string, feed: TreeFeed) => void = () => undefined,
  ) {}

  of(rootId: string): TreeFeed {
    let feed = this.feeds.get(rootId);
    if (!feed) {
      this.counter += 1;
      const onIdle = () => {
        if (this.feeds.get(rootId) === created) this.feeds.delete(rootId);
      };
      const created: TreeFeed = new TreeFeed(
        this.sessionOf(rootId),
        `${this.serverEpoch}.${this.counter}`,
        this.idleMs,
        onIdle,
        this.limits,
      );
      feed = created;
      this.feeds.set(rootId, feed);
      this.onOpen(rootId, feed);
    }
    return feed;
  }

  /** The tree's feed when a tab watches it (or watched it a moment ago), else undefined. */
  existing(rootId: string): TreeFeed | undefined {
    return this.feeds.get(rootId);
  }

  get size(): number {
    return this.feeds.size;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.feeds.values()].map((feed) => feed.close()));
  }
}

export function parsePosition(lastEventId: string | undefined): FeedPosition | undefined {
  const match = /^(.+):(\d+)$/.exec(lastEventId ?? '');
  return match ? { epoch: match[1]!, index: Number(match[2]) } : undefined;
}
