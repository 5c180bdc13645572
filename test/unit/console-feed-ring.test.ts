import { describe, expect, it } from 'vitest';
import { FeedRing } from '../../src/console/feed-ring.js';

describe("the console feed's ring", () => {
  it('numbers items from 1 for the whole feed and keeps only the newest past its item limit', () => {
    const ring = new FeedRing<string>({ maxItems: 3 });
    const numbers = ['a', 'b', 'c', 'd', 'e'].map((item) => ring.push(item));
    expect(numbers).toEqual([1, 2, 3, 4, 5]);
    expect(ring.first).toBe(3);
    expect([...ring.after(0)]).toEqual([
      ['c', 3],
      ['d', 4],
      ['e', 5],
    ]);
    expect([...ring.after(4)]).toEqual([['e', 5]]);
    expect([...ring.after(5)]).toEqual([]);
  });

  it('drops the oldest items once their JSON passes the size limit, but always keeps the newest', () => {
    const ring = new FeedRing<string>({ maxChars: 25 });
    ring.push('x'.repeat(10));
    ring.push('y'.repeat(10));
    expect(ring.size).toBe(2);
    ring.push('z'.repeat(100));
    expect(ring.size).toBe(1);
    expect([...ring.after(0)].map(([, number]) => number)).toEqual([3]);
  });

  it('stays right across the compaction of its dropped front', () => {
    const ring = new FeedRing<number>({ maxItems: 10 });
    for (let index = 1; index <= 5_000; index += 1) ring.push(index);
    expect(ring.size).toBe(10);
    expect([...ring.after(4_995)]).toEqual([
      [4_996, 4_996],
      [4_997, 4_997],
      [4_998, 4_998],
      [4_999, 4_999],
      [5_000, 5_000],
    ]);
  });
});
