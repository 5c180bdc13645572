import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StreamBatcher } from '../../src/activities/stream-batcher.js';
import { maxStreamBatchesPerCall, streamBatchIntervalMs, type StreamItemBody } from '../../src/shared/stream.js';

const origin = { turn: 1, round: 0, attempt: 1 };
const delta = (text: string): StreamItemBody => ({ type: 'text_delta', text, ...origin });
const textOf = (batches: StreamItemBody[][]) =>
  batches
    .flat()
    .map((item) => (item.type === 'text_delta' ? item.text : ''))
    .join('');

describe('the stream batcher of a model call', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('sends the first delta at once and merges what follows within the interval into one batch', async () => {
    const batches: StreamItemBody[][] = [];
    const batcher = new StreamBatcher(async (items) => void batches.push(items));
    batcher.add(delta('Hello'));
    await vi.advanceTimersByTimeAsync(0);
    expect(batches).toEqual([[delta('Hello')]]);

    for (const word of [' there', ',', ' friend']) batcher.add(delta(word));
    await vi.advanceTimersByTimeAsync(streamBatchIntervalMs);
    expect(batches).toEqual([[delta('Hello')], [delta(' there, friend')]]);
    await batcher.close();
  });

  it('sends a reply written for ten minutes in a bounded number of batches, every word once and in order', async () => {
    const batches: StreamItemBody[][] = [];
    const batcher = new StreamBatcher(async (items) => void batches.push(items));
    const words: string[] = [];
    for (let tick = 0; tick < 10 * 60 * 20; tick++) {
      const word = `w${tick} `;
      words.push(word);
      batcher.add(delta(word));
      await vi.advanceTimersByTimeAsync(50);
    }
    await batcher.close();

    expect(batches.length).toBeLessThanOrEqual(maxStreamBatchesPerCall + 1);
    expect(batches.length).toBeGreaterThan(maxStreamBatchesPerCall / 2);
    expect(textOf(batches)).toBe(words.join(''));
  });
});
