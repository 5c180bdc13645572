import type { StreamBatch, StreamItemBody } from './stream.js';

/**
 * Longer texts arrive as several items. A batch is sent every 200 ms, but while one send waits on a loaded worker
 * (or after a call's last batch by count) everything written meanwhile joins the next, which can be far longer.
 */
const maxItemText = 20_000;

/**
 * The items a `streamDeltas` batch becomes, in the order the session's ring numbers them: anything malformed (anyone
 * may signal a workflow) left out, long texts in pieces. Shared by the ring and by readers that number a recorded
 * batch before the workflow takes it (see early-stream-items.ts), so both count the same items.
 */
export function streamBatchItems(batch: StreamBatch | unknown): StreamItemBody[] {
  const raw =
    typeof batch === 'object' && batch !== null && Array.isArray((batch as StreamBatch).items) ? (batch as StreamBatch).items : [];
  const result: StreamItemBody[] = [];
  for (const item of raw as unknown[]) {
    const body = wellFormed(item);
    if (body?.type === 'text_delta') for (const text of pieces(body.text)) result.push({ ...body, text });
    else if (body) result.push(body);
  }
  return result;
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
