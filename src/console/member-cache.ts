import { closedStatuses, type SessionSnapshot, type TranscriptEntry } from '../shared/session.js';

interface Entry<T> {
  value: Promise<T>;
  at: number;
  /** An ended member's answer, which no longer changes: kept without an age. */
  final?: boolean;
}

/**
 * What the members of one watched tree answered (snapshots, transcripts), kept until the tree's feed shows that a
 * member changed: every event and stream item names its session, and only that session is asked again. A member that
 * shows nothing is asked again after `maxAgeMs` all the same, in case a change of its came with no event.
 */
export class MemberCache {
  private readonly snapshots = new Map<string, Entry<SessionSnapshot>>();
  private readonly transcripts = new Map<string, Entry<TranscriptEntry[]>>();
  private changes = 0;
  /** Queries sent, by member: how the server's load can be seen and tested. */
  readonly asked = new Map<string, number>();

  constructor(
    private readonly read: {
      snapshot: (sessionId: string) => Promise<SessionSnapshot>;
      transcript: (sessionId: string) => Promise<TranscriptEntry[]>;
    },
    private readonly maxAgeMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The member changed (an event or stream item of it arrived): ask it again next time. */
  changed(sessionId: string): void {
    this.snapshots.delete(sessionId);
    this.transcripts.delete(sessionId);
    this.changes += 1;
  }

  /** Everything may have changed (a member could not be read, or the tab was told to reset). */
  changedAll(): void {
    for (const id of new Set([...this.snapshots.keys(), ...this.transcripts.keys()])) this.changed(id);
    this.changes += 1;
  }

  get queries(): number {
    let sum = 0;
    for (const count of this.asked.values()) sum += count;
    return sum;
  }

  /** A counter that moves whenever any member changed: a tree built at the same count is still right. */
  get version(): number {
    return this.changes;
  }

  snapshot(sessionId: string): Promise<SessionSnapshot> {
    return this.cached(this.snapshots, sessionId, () => this.read.snapshot(sessionId));
  }

  transcript(sessionId: string): Promise<TranscriptEntry[]> {
    return this.cached(this.transcripts, sessionId, () => this.read.transcript(sessionId));
  }

  private cached<T>(entries: Map<string, Entry<T>>, sessionId: string, ask: () => Promise<T>): Promise<T> {
    const entry = entries.get(sessionId);
    if (entry && (entry.final || this.now() - entry.at < this.maxAgeMs)) return entry.value;
    this.asked.set(sessionId, (this.asked.get(sessionId) ?? 0) + 1);
    const value = ask();
    const created: Entry<T> = { value, at: this.now() };
    entries.set(sessionId, created);
    void value.then(
      (answer) => {
        if (isEnded(answer)) created.final = true;
      },
      () => undefined,
    );
    // A failed answer is not kept. (A change while the query is on its way drops the entry: see `changed`.)
    value.catch(() => {
      if (entries.get(sessionId)?.value === value) entries.delete(sessionId);
    });
    return value;
  }
}

const endedStatuses: readonly string[] = closedStatuses;

function isEnded(answer: unknown): boolean {
  const status = (answer as Partial<SessionSnapshot> | undefined)?.status;
  return typeof status === 'string' && endedStatuses.includes(status);
}
