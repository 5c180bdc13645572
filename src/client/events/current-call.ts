import type { Client } from '@temporalio/client';
import type { StreamItem } from '../../shared/stream.js';
import { readSessionStream } from './session-stream.js';

/** Items after which nothing of an earlier model call is being written: its text is in the transcript, or void. */
const callEnds: ReadonlySet<StreamItem['type']> = new Set(['tool_result', 'turn_ended', 'turn_interrupted']);

/**
 * The position after which the session's current model call wrote what it has so far (0 when everything held is of
 * it): reading from here gives a half-written answer whole. Reads what the session's stream ring holds now.
 */
export async function currentCallStart(client: Client, sessionId: string, signal: AbortSignal): Promise<number> {
  let start = 0;
  for await (const item of readSessionStream(client, sessionId, { from: 0, follow: false, signal })) {
    if (callEnds.has(item.type)) start = item.pos;
  }
  return start;
}
