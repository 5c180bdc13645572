/** How much of a feed the server keeps for tabs that reconnect: the newest items, at most this many and this large. */
export interface FeedLimits {
  maxItems: number;
  /** Characters of the items' JSON, the size a reconnecting tab is sent. */
  maxChars: number;
}

export const defaultFeedLimits: FeedLimits = { maxItems: 20_000, maxChars: 8_000_000 };

/**
 * The newest items of a feed, numbered from 1 for the feed's whole life: the oldest are dropped once either limit is
 * passed, and `first` says which is the oldest still kept.
 */
export class FeedRing<T> {
  private readonly items: { item: T; chars: number }[] = [];
  private head = 0;
  private next = 1;
  private totalChars = 0;
  private readonly limits: FeedLimits;

  constructor(limits: Partial<FeedLimits> = {}) {
    this.limits = { ...defaultFeedLimits, ...limits };
  }

  /** Keeps the item and answers its number. */
  push(item: T): number {
    const chars = JSON.stringify(item).length;
    this.items.push({ item, chars });
    this.totalChars += chars;
    while (this.size > 1 && (this.size > this.limits.maxItems || this.totalChars > this.limits.maxChars)) {
      this.totalChars -= this.items[this.head]!.chars;
      this.head += 1;
    }
    // Drop the dead front now and then rather than shifting on every push.
    if (this.head > 1_024 && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
    const number = this.next;
    this.next += 1;
    return number;
  }

  /** The number of the oldest item kept (one more than the newest when none is kept). */
  get first(): number {
    return this.next - this.size;
  }

  get size(): number {
    return this.items.length - this.head;
  }

  get chars(): number {
    return this.totalChars;
  }

  /** The kept items numbered after `after`, with their numbers. */
  *after(after: number): Generator<[T, number]> {
    const start = Math.max(after + 1, this.first);
    const end = this.next;
    for (let number = start; number < end; number += 1) yield [this.items[this.head + number - this.first]!.item, number];
  }
}
