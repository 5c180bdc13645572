import type { Client } from '@temporalio/client';
import type proto from '@temporalio/proto';
import { HistoryWatch } from './history-watch.js';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

/** What a reader waits on: the history's next change since its own last wake-up, or the run's end. */
export interface MemberWatch {
  readonly runId: string;
  /**
   * The events this reader's last 'changed' brought, in history order: every event since its previous wake-up. A
   * reader that joined a shared watch late gets those from its joining on (earlier ones were given to others).
   */
  readonly events: HistoryEvent[];
  /** The first event id from which this reader has had every event of the run (1: all of them). */
  readonly seenFrom: number;
  next(signal?: AbortSignal): Promise<'changed' | 'closed'>;
  /** Starts reading the pages already written (HistoryWatch.prefetch); a shared watch's first poll reads them anyway. */
  prefetch(signal?: AbortSignal): void;
  /** The reader is done with it (a shared watch stops once no reader holds it). */
  release(): void;
}

/**
 * One history long poll per watched run, shared by every reader that watches it: a tree's event reader and its stream
 * reader, however many callers read the tree through the same `HistoryWatches`. Give the same one to
 * `treeEvents({ watches })` and `streamTree({ watches })` (or `events`/`stream`) to read a session's events and its
 * stream with one long poll instead of two.
 */
export class HistoryWatches {
  private readonly runs = new Map<string, SharedRun>();

  /** A watch of this run for one reader, polled with the first reader's client; `release` it when the reader ends. */
  open(client: Client, workflowId: string, runId: string): MemberWatch {
    const key = `${workflowId}\u0000${runId}`;
    let run = this.runs.get(key);
    if (!run) {
      const created = new SharedRun(new HistoryWatch(client, workflowId, runId), () => {
        if (this.runs.get(key) === created) this.runs.delete(key);
      });
      run = created;
      this.runs.set(key, run);
    }
    return run.reader();
  }

  /** How many runs are watched now (each with at most one long poll open). */
  get watched(): number {
    return this.runs.size;
  }

  /** How many history long polls are open right now. */
  get polling(): number {
    let open = 0;
    for (const run of this.runs.values()) if (run.polling) open += 1;
    return open;
  }

  /** How many readers wait on those polls right now. */
  get waiting(): number {
    let readers = 0;
    for (const run of this.runs.values()) readers += run.waiting;
    return readers;
  }
}

/** A reader's own watch when no `HistoryWatches` is given: its own long poll, as before sharing. */
export function openHistoryWatch(client: Client, workflowId: string, runId: string, watches?: HistoryWatches): MemberWatch {
  if (watches) return watches.open(client, workflowId, runId);
  const watch = new HistoryWatch(client, workflowId, runId);
  return {
    runId,
    seenFrom: 1,
    get events() {
      return watch.events;
    },
    next: (signal) => watch.next(signal),
    prefetch: (signal) => watch.prefetch(signal),
    release: () => undefined,
  };
}

interface Waiter {
  wake: (result: 'changed' | 'closed') => void;
  fail: (error: unknown) => void;
}

/**
 * The readers of one run. The long poll runs while some reader waits, and stops (aborted) when none does; its page
 * token is kept, so a later poll still sees every event since the last. The events polled are kept until every reader
 * has taken them: a reader that was busy when a change came wakes at once on its next wait, with every event it has
 * not had, so no reader misses a change (nor, for the stream's early items, an event).
 */
class SharedRun {
  /** Events polled and not yet taken by every reader; `base` counts those dropped before them. */
  private log: HistoryEvent[] = [];
  private base = 0;
  /** Per reader: how many of the run's polled events it has taken. */
  private readonly taken = new Map<number, number>();
  private readers = 0;
  /** The id of the newest event polled (0 before the first). */
  private lastEventId = 0;
  private closed = false;
  private readonly waiters = new Set<Waiter>();
  private poll: AbortController | undefined;
  private polled: Promise<void> = Promise.resolve();

  constructor(
    private readonly watch: HistoryWatch,
    private readonly onEmpty: () => void,
  ) {}

  get waiting(): number {
    return this.waiters.size;
  }

  get polling(): boolean {
    return this.poll !== undefined && !this.poll.signal.aborted;
  }

  private get end(): number {
    return this.base + this.log.length;
  }

  reader(): MemberWatch {
    const id = this.readers++;
    this.taken.set(id, this.end);
    let events: HistoryEvent[] = [];
    let released = false;
    return {
      runId: this.watch.runId,
      seenFrom: this.lastEventId + 1,
      get events() {
        return events;
      },
      next: async (signal) => {
        const result = await this.next(this.taken.get(id) ?? this.end, signal);
        if (result === 'changed') {
          events = this.log.slice((this.taken.get(id) ?? this.end) - this.base);
          this.taken.set(id, this.end);
          this.trim();
        }
        return result;
      },
      // The shared poll's first call reads from the run's start; later readers take events from their joining on.
      prefetch: () => undefined,
      release: () => {
        if (released) return;
        released = true;
        this.taken.delete(id);
        this.trim();
        if (this.taken.size === 0) {
          this.poll?.abort();
          this.onEmpty();
        }
      },
    };
  }

  /** Drops the events every reader has taken. */
  private trim(): void {
    const oldest = Math.min(...this.taken.values());
    if (!Number.isFinite(oldest) || oldest <= this.base) return;
    this.log = this.log.slice(oldest - this.base);
    this.base = oldest;
  }

  private next(taken: number, signal: AbortSignal | undefined): Promise<'changed' | 'closed'> {
    if (this.end > taken) return Promise.resolve('changed');
    if (this.closed) return Promise.resolve('closed');
    if (signal?.aborted) return Promise.reject(abortError(signal));
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.waiters.delete(waiter);
        if (this.waiters.size === 0) this.poll?.abort();
        reject(abortError(signal!));
      };
      const waiter: Waiter = {
        wake: (result) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(result);
        },
        fail: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(waiter);
      if (!this.poll || this.poll.signal.aborted) this.startPolling();
    });
  }

  /** A poll stopped a moment ago may still be ending: the next waits for it, so one call at a time uses the token. */
  private startPolling(): void {
    const poll = new AbortController();
    this.poll = poll;
    this.polled = this.polled.then(() => this.pollWhileWaited(poll));
  }

  private async pollWhileWaited(poll: AbortController): Promise<void> {
    try {
      while (this.waiters.size > 0 && !poll.signal.aborted) {
        let result: 'changed' | 'closed';
        try {
          result = await this.watch.next(poll.signal);
        } catch (error) {
          // Stopped because nobody waits any more: the waiters have gone already.
          if (poll.signal.aborted) return;
          // A failed poll fails the readers waiting on it, as their own poll's failure would.
          for (const waiter of this.takeWaiters()) waiter.fail(error);
          return;
        }
        if (result === 'closed') {
          this.closed = true;
          this.onEmpty();
        } else {
          this.log.push(...this.watch.events);
          this.lastEventId = Number(this.watch.events.at(-1)?.eventId ?? this.lastEventId);
        }
        for (const waiter of this.takeWaiters()) waiter.wake(result);
        if (this.closed) return;
      }
    } finally {
      if (this.poll === poll) this.poll = undefined;
    }
  }

  private takeWaiters(): Waiter[] {
    const taken = [...this.waiters];
    this.waiters.clear();
    return taken;
  }
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}
