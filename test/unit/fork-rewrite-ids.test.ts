import { describe, expect, it } from 'vitest';
import { rewriteIds } from '../../src/client/fork/rewrite-ids.js';

describe("a forked tree's ids", () => {
  it('replaces every old id with its new one, in values, keys and running text, and leaves the rest as it was', () => {
    const ids = new Map([
      ['root-a', 'root-b'],
      ['child-a', 'child-b'],
    ]);
    const carried = {
      children: [{ sub_session_id: 'child-a', status: 'running', final_message: null }],
      transcript: [{ role: 'tool', content: '{"sub_session_id":"child-a"} started by root-a' }],
      usage: { members: { 'child-a': { tokens: 3 } } },
      turn: 2,
      other: 'finished-child',
    };

    const rewritten = rewriteIds(carried, ids);

    expect(rewritten).toEqual({
      children: [{ sub_session_id: 'child-b', status: 'running', final_message: null }],
      transcript: [{ role: 'tool', content: '{"sub_session_id":"child-b"} started by root-b' }],
      usage: { members: { 'child-b': { tokens: 3 } } },
      turn: 2,
      other: 'finished-child',
    });
    expect(carried.children[0]!.sub_session_id).toBe('child-a');
  });
});
