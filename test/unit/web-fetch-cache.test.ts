import { describe, expect, it } from 'vitest';
import { DEFAULT_CACHE_TTL_MS, PageCache, type CachedPage } from '../../src/web/fetch/page-cache.js';

function page(content: string, url = 'https://example.org/'): CachedPage {
  return { kind: 'page', url, mediaType: 'text/plain', title: undefined, content, notes: [] };
}

const MINUTE = 60_000;

describe('PageCache', () => {
  it('keeps entries for 30 minutes by default', () => {
    expect(DEFAULT_CACHE_TTL_MS).toBe(30 * MINUTE);
    const cache = new PageCache();
    cache.set('https://example.org/a', page('A'), 0);
    expect(cache.get('https://example.org/a', 30 * MINUTE - 1)).toEqual(page('A'));
    expect(cache.get('https://example.org/a', 30 * MINUTE)).toBeUndefined();
  });

  it('cleans itself: expired entries are dropped on the next access, whatever key it is for', () => {
    const cache = new PageCache({ ttlMs: 10 });
    cache.set('a', page('A'), 0);
    cache.set('b', page('B'), 5);
    expect(cache.size).toBe(2);
    cache.get('unrelated', 12);
    expect(cache.size).toBe(1);
    expect(cache.get('b', 12)).toBeDefined();
    cache.set('c', page('C'), 100);
    expect(cache.size).toBe(1);
    expect(cache.chars).toBeGreaterThan(0);
  });

  it('does not extend an entry’s life when it is read', () => {
    const cache = new PageCache({ ttlMs: 100 });
    cache.set('a', page('A'), 0);
    expect(cache.get('a', 90)).toBeDefined();
    expect(cache.get('a', 100)).toBeUndefined();
  });

  it('is bounded by entry count, dropping the least recently used first', () => {
    const cache = new PageCache({ maxEntries: 2 });
    cache.set('a', page('A'), 0);
    cache.set('b', page('B'), 0);
    cache.get('a', 1);
    cache.set('c', page('C'), 2);
    expect(cache.size).toBe(2);
    expect(cache.get('b', 3)).toBeUndefined();
    expect(cache.get('a', 3)).toBeDefined();
    expect(cache.get('c', 3)).toBeDefined();
  });

  it('is bounded by total size and does not store an entry larger than the whole cache', () => {
    const cache = new PageCache({ maxChars: 1_000 });
    cache.set('a', page('x'.repeat(400)), 0);
    cache.set('b', page('y'.repeat(400)), 0);
    expect(cache.size).toBe(2);
    cache.set('c', page('z'.repeat(400)), 0);
    expect(cache.size).toBe(2);
    expect(cache.get('a', 0)).toBeUndefined();
    expect(cache.chars).toBeLessThanOrEqual(1_000);
    cache.set('huge', page('h'.repeat(5_000)), 0);
    expect(cache.get('huge', 0)).toBeUndefined();
    expect(cache.size).toBe(2);
  });

  it('replaces an entry stored again under the same URL, restarting its 30 minutes', () => {
    const cache = new PageCache();
    cache.set('a', page('old'), 0);
    cache.set('a', page('new'), 20 * MINUTE);
    expect(cache.size).toBe(1);
    expect(cache.get('a', 45 * MINUTE)).toEqual(page('new'));
  });
});
