import type { TranscriptEntry } from '../shared/session.js';

export type FetchTranscriptPrefix = (sessionId: string, runId: string, count: number) => Promise<TranscriptEntry[]>;

/**
 * Rebuilds a session's transcript from the deltas its model calls carry. Each workflow run sends only the entries
 * added since its previous call; when this worker has not seen the earlier part (another worker, a restart), it
 * asks the workflow for it. Bounded: least recently used runs are dropped.
 */
export class TranscriptCache {
  private readonly runs = new Map<string, TranscriptEntry[]>();

  constructor(
    private readonly fetchPrefix: FetchTranscriptPrefix,
    private readonly maxRuns = 256,
  ) {}

  async resolve(sessionId: string, runId: string, start: number, delta: TranscriptEntry[]): Promise<TranscriptEntry[]> {
    const cached = this.runs.get(runId);
    let prefix: TranscriptEntry[];
    if (start === 0) prefix = [];
    else if (cached && cached.length >= start) prefix = cached.slice(0, start);
    else prefix = await this.fetchPrefix(sessionId, runId, start);
    if (prefix.length !== start) {
      throw new Error(`transcript of session ${sessionId} has ${prefix.length} entries before this call, expected ${start}`);
    }
    const full = prefix.concat(delta);
    this.runs.delete(runId);
    this.runs.set(runId, full);
    while (this.runs.size > this.maxRuns) this.runs.delete(this.runs.keys().next().value!);
    return full;
  }
}
