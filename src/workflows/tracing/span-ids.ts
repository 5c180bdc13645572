import type { IdGenerator } from '@opentelemetry/sdk-trace-base';

/**
 * Span and trace ids for spans made in workflow code, drawn from the run id and a counter rather than from
 * Math.random: in a workflow, Math.random is the run's seeded random source, which also gives uuid4() its ids
 * (sub-agent ids, question ids), so ids drawn for spans would change them and break replay of sessions recorded
 * with tracing off. The same run makes the same spans in the same order on replay, so the ids come out the same.
 */
export class RunSpanIds implements IdGenerator {
  private drawn = 0;

  constructor(private readonly runId: string) {}

  generateTraceId(): string {
    return this.next() + this.next();
  }

  generateSpanId(): string {
    return this.next();
  }

  /** 16 hex digits: two 32-bit FNV-1a hashes of `<runId>/<counter>`, with different offsets. */
  private next(): string {
    const text = `${this.runId}/${this.drawn++}`;
    return hex32(text, 0x811c9dc5) + hex32(text, 0x01000193 ^ 0x5bd1e995);
  }
}

/** 8 hex digits: a 32-bit FNV-1a hash of `text` from `offset`, with a final mix. */
export function hex32(text: string, offset: number): string {
  let hash = offset >>> 0;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  // A final mix, so that counters differing in their last digit differ in every digit.
  hash ^= hash >>> 15;
  hash = Math.imul(hash, 0x2c1b3c6d) >>> 0;
  hash ^= hash >>> 12;
  return (hash >>> 0).toString(16).padStart(8, '0');
}
