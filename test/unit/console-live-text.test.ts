import { describe, expect, it } from 'vitest';
import { nextWriting, type Writing } from '../../console-page/src/live-text.js';
import type { StreamItem } from '../../src/shared/stream.js';

const origin = { turn: 1, round: 1, attempt: 1, session_id: 's' };
let pos = 0;
const item = (body: Record<string, unknown>) => ({ ...origin, pos: ++pos, ...body }) as unknown as StreamItem;
const play = (items: StreamItem[]) => items.reduce<Writing | null>((writing, next) => nextWriting(writing, next), null);

describe("the console page's answer as it is written", () => {
  it('joins the deltas of a call and names the tools it starts calling', () => {
    const writing = play([
      item({ type: 'text_delta', text: 'Look' }),
      item({ type: 'text_delta', text: 'ing.' }),
      item({ type: 'tool_call_started', index: 0, tool_call_id: 'c1', name: 'webSearch' }),
    ]);
    expect(writing).toMatchObject({ text: 'Looking.', tools: ['webSearch'] });
  });

  it('starts over for a retried attempt and for the next round, and shows nothing once the turn ended', () => {
    const retried = play([
      item({ type: 'text_delta', text: 'Half an ans' }),
      item({ type: 'retry', attempt: 2 }),
      item({ type: 'text_delta', text: 'Whole.', attempt: 2 }),
    ]);
    expect(retried?.text).toBe('Whole.');
    const nextRound = nextWriting(retried, item({ type: 'text_delta', text: 'Then.', round: 2 }));
    expect(nextRound).toMatchObject({ round: 2, text: 'Then.' });
    expect(nextWriting(nextRound, item({ type: 'turn_ended', outcome: 'answered' }))).toBeNull();
    expect(nextWriting(nextRound, item({ type: 'tool_result', tool_call_id: 'c1', name: 'x', is_error: false }))).toBeNull();
  });
});
