import {
  streamRingChars,
  streamRingSize,
  type StreamBatch,
  type StreamItem,
  type StreamItemBody,
  type StreamPage,
  type StreamRange,
} from '../shared/stream.js';
import { streamBatchItems } from '../shared/stream-batch-items.js';

const maxPage = 500;

/** Where the ring's state stands in its run's history, for readers that number recorded batches early. */
export type StreamRingPlace = () => { history_length: number; run_id: string };

/**
 * The newest stream items of this run, in memory only: not carried across continue-as-new and not in the transcript.
 * Positions start at the run's start time in milliseconds times 1,000, so they keep growing across runs (a run would
 * have to hold more than 1,000 items per millisecond it lives to reach the next run's first position).
 */
export class StreamRing {
  private items: StreamItem[] = [];
  private chars = 0;
  private nextPos: number;
  private dropped = false;

  constructor(
    private readonly sessionId: string,
    runStartedAtMs: number,
    private readonly place?: StreamRingPlace,
  ) {
    this.nextPos = runStartedAtMs * 1_000 + 1;
  }
  push(body: StreamItemBody): void {
    const item = { ...body, pos: this.nextPos++, session_id: this.sessionId } as StreamItem;
    this.items.push(item);
    this.chars += textOf(item).length;
    while (this.items.length > streamRingSize || (this.chars > streamRingChars && this.items.length > 1)) {
      this.chars -= textOf(this.items.shift()!).length;
      this.dropped = true;
    }
  }

  /** Takes what the model call activity sent; anything malformed (anyone may signal a workflow) is left out. */
  receive(batch: StreamBatch): void {
    for (const body of streamBatchItems(batch)) this.push(body);
  }

  get lastPos(): number {
    return this.nextPos - 1;
  }

  page(range: StreamRange = {}): StreamPage {
    const after = Number.isFinite(range?.after) ? Number(range.after) : 0;
    const limit = Math.min(maxPage, Math.max(1, Math.floor(Number(range?.limit) || maxPage)));
    const oldest = this.items[0]?.pos ?? this.nextPos;
    const start = this.items.findIndex((item) => item.pos > after);
    const items = start === -1 ? [] : this.items.slice(start, start + limit);
    // Only dropped items count as missed: a position from an earlier run is below this run's first one without loss.
    return { items, last_pos: this.lastPos, missed: this.dropped && after < oldest - 1, ...this.place?.() };
  }
}

function textOf(item: StreamItemBody): string {
  return item.type === 'text_delta' ? item.text : '';
}
