import { describe, expect, it, vi } from 'vitest';
import type { TranscriptEntry } from '../../src/shared/session.js';
import { TranscriptCache, type FetchTranscriptPrefix } from '../../src/activities/transcript-cache.js';

function entries(from: number, count: number): TranscriptEntry[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `e${from + i}`,
    role: 'user' as const,
    content: `m${from + i}`,
    created_at: '2024-05-01T10:00:00.000Z',
  }));
}

/** A fetch that answers with the first `count` entries of a 100-entry transcript, and records its calls. */
function fakeFetch() {
  return vi.fn<FetchTranscriptPrefix>(async (_sessionId, _runId, count) => entries(0, count));
}

const ids = (list: TranscriptEntry[]) => list.map((entry) => entry.id);

describe('TranscriptCache', () => {
  it('needs no fetch when the delta starts at 0', async () => {
    const fetch = fakeFetch();
    const cache = new TranscriptCache(fetch);
    const full = await cache.resolve('s', 'r', 0, entries(0, 3));
    expect(ids(full)).toEqual(['e0', 'e1', 'e2']);
    expect(fetch).not.toHaveBeenCalled();
  });

  it('builds on a cached prefix without fetching', async () => {
    const fetch = fakeFetch();
    const cache = new TranscriptCache(fetch);
    await cache.resolve('s', 'r', 0, entries(0, 3));
    const full = await cache.resolve('s', 'r', 3, entries(3, 2));
    expect(ids(full)).toEqual(['e0', 'e1', 'e2', 'e3', 'e4']);
    const again = await cache.resolve('s', 'r', 5, entries(5, 1));
    expect(ids(again)).toEqual(['e0', 'e1', 'e2', 'e3', 'e4', 'e5']);
    expect(fetch).not.toHaveBeenCalled();
  });

  it('uses only the first start entries of a longer cached transcript, as when an attempt is retried', async () => {
    const fetch = fakeFetch();
    const cache = new TranscriptCache(fetch);
    await cache.resolve('s', 'r', 0, entries(0, 5));
    const retried = await cache.resolve('s', 'r', 3, [{ ...entries(3, 1)[0]!, content: 'changed' }]);
    expect(ids(retried)).toEqual(['e0', 'e1', 'e2', 'e3']);
    expect(retried[3]!.content).toBe('changed');
    expect(fetch).not.toHaveBeenCalled();
  });

  it('fetches exactly start entries for a run it has not seen', async () => {
    const fetch = fakeFetch();
    const cache = new TranscriptCache(fetch);
    const full = await cache.resolve('sess', 'run-1', 4, entries(4, 2));
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(fetch).toHaveBeenCalledWith('sess', 'run-1', 4);
    expect(ids(full)).toEqual(['e0', 'e1', 'e2', 'e3', 'e4', 'e5']);
  });

  it('fetches when the cached transcript is shorter than start', async () => {
    const fetch = fakeFetch();
    const cache = new TranscriptCache(fetch);
    await cache.resolve('s', 'r', 0, entries(0, 2));
    await cache.resolve('s', 'r', 5, entries(5, 1));
    expect(fetch).toHaveBeenCalledExactlyOnceWith('s', 'r', 5);
  });

  it('keeps runs apart: another run id of the same session is fetched', async () => {
    const fetch = fakeFetch();
    const cache = new TranscriptCache(fetch);
    await cache.resolve('s', 'run-1', 0, entries(0, 3));
    await cache.resolve('s', 'run-2', 3, entries(3, 1));
    expect(fetch).toHaveBeenCalledExactlyOnceWith('s', 'run-2', 3);
  });

  it('after a fetch, serves the next call of that run from the cache', async () => {
    const fetch = fakeFetch();
    const cache = new TranscriptCache(fetch);
    await cache.resolve('s', 'r', 2, entries(2, 1));
    await cache.resolve('s', 'r', 3, entries(3, 1));
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('throws when the fetch returns the wrong number of entries, and caches nothing', async () => {
    const fetch = vi.fn<FetchTranscriptPrefix>(async () => entries(0, 2));
    const cache = new TranscriptCache(fetch);
    await expect(cache.resolve('sess', 'r', 3, [])).rejects.toThrow(
      'transcript of session sess has 2 entries before this call, expected 3',
    );
    await expect(cache.resolve('sess', 'r', 3, [])).rejects.toThrow();
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('evicts the least recently used run beyond maxRuns', async () => {
    const fetch = fakeFetch();
    const cache = new TranscriptCache(fetch, 2);
    await cache.resolve('s', 'a', 0, entries(0, 1));
    await cache.resolve('s', 'b', 0, entries(0, 1));
    await cache.resolve('s', 'a', 1, entries(1, 1)); // a is now the most recently used
    await cache.resolve('s', 'c', 0, entries(0, 1)); // evicts b

    await cache.resolve('s', 'a', 2, entries(2, 1));
    await cache.resolve('s', 'c', 1, entries(1, 1));
    expect(fetch).not.toHaveBeenCalled();

    await cache.resolve('s', 'b', 1, entries(1, 1));
    expect(fetch).toHaveBeenCalledExactlyOnceWith('s', 'b', 1);
  });
});
