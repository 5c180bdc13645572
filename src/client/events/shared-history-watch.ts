import type { Client } from '@temporalio/client';
import { HistoryWatch } from './history-watch.js';

/** What a reader waits on: the history's next change since its own last wake-up, or the run's end. */
export interface MemberWatch {
  next(signal?: AbortSignal): Promise<'changed' | 'closed'>;
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
  return { next: (signal) => watch.next(signal), release: () => undefined };
}

interface Waiter {
  wake: (result: 'changed' | 'closed') => void;
  fail: (error: unknown) => void;
}

/**
 * The readers of one run. The long poll runs while some reader waits, and stops (aborted) when none does; its page
 * token is kept, so a later poll still sees every event since the last. Each change bumps `generation`, and a reader
 * that was busy when it came wakes at once on its next wait, so no reader misses a change it has not read.
 */
class SharedRun {
  private generation = 0;
  private closed = false;
  private holders = 0;
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

  reader(): MemberWatch {
    this.holders += 1;
    let seen = this.generation;
    let released = false;
    return {
      next: async (signal) => {
        const result = await this.next(seen, signal);
        seen = this.generation;
        return result;
      },
      release: () => {
        if (released) return;
        released = true;
        this.holders -= 1;
        if (this.holders === 0) {
          this.poll?.abort();
          this.onEmpty();
        }
      },
    };
  }

  private next(seen: number, signal: AbortSignal | undefined): Promise<'changed' | 'closed'> {
    if (this.generation > seen) return Promise.resolve('changed');
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
        } else this.generation += 1;
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
