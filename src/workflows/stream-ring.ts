import {
  streamRingChars,
  streamRingSize,
  type StreamBatch,
  type StreamItem,
  type StreamItemBody,
  type StreamPage,
  type StreamRange,
} from '../shared/stream.js';

const maxPage = 500;
/**
 * Longer texts arrive as several items. A batch is sent every 200 ms, but while one send waits on a loaded worker
 * (or after a call's last batch by count) everything written meanwhile joins the next, which can be far longer.
 */
const maxItemText = 20_000;

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
    const items = typeof batch === 'object' && batch !== null && Array.isArray(batch.items) ? batch.items : [];
    for (const item of items) {
      const body = wellFormed(item);
      if (body?.type === 'text_delta') for (const text of pieces(body.text)) this.push({ ...body, text });
      else if (body) this.push(body);
    }
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
    return { items, last_pos: this.lastPos, missed: this.dropped && after < oldest - 1 };
  }
}

/** A text in pieces of at most `maxItemText` code units, never splitting a surrogate pair. */
function pieces(text: string): string[] {
  const result: string[] = [];
  let start = 0;
  while (text.length - start > maxItemText) {
    let end = start + maxItemText;
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end -= 1;
    result.push(text.slice(start, end));
    start = end;
  }
  result.push(text.slice(start));
  return result;
}

function textOf(item: StreamItemBody): string {
  return item.type === 'text_delta' ? item.text : '';
}

function wellFormed(item: unknown): StreamItemBody | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const value = item as Record<string, unknown>;
  const origin = { turn: value.turn, round: value.round, attempt: value.attempt };
  if (!Object.values(origin).every((n) => typeof n === 'number' && Number.isInteger(n) && n >= 0)) return undefined;
  const { turn, round, attempt } = origin as { turn: number; round: number; attempt: number };
  switch (value.type) {
    case 'text_delta':
      return typeof value.text === 'string' ? { type: 'text_delta', text: value.text, turn, round, attempt } : undefined;
    case 'tool_call_started':
      if (typeof value.name !== 'string' || typeof value.tool_call_id !== 'string' || typeof value.index !== 'number') return undefined;
      return {
        type: 'tool_call_started',
        index: value.index,
        tool_call_id: value.tool_call_id.slice(0, 200),
        name: value.name.slice(0, 200),
        turn,
        round,
        attempt,
      };
    case 'retry':
      return { type: 'retry', turn, round, attempt };
    default:
      return undefined;
  }
}
