import { describe, expect, it } from 'vitest';
import { MemberCache } from '../../src/console/member-cache.js';
import type { SessionSnapshot } from '../../src/shared/session.js';

const snapshotOf = (id: string, status: string) => ({ session_id: id, status }) as unknown as SessionSnapshot;

function cacheWith(statuses: Record<string, string>, clock = { now: 0 }) {
  const asked: string[] = [];
  const cache = new MemberCache(
    {
      snapshot: async (id) => {
        asked.push(id);
        if (!statuses[id]) throw new Error(`no ${id}`);
        return snapshotOf(id, statuses[id]);
      },
      transcript: async () => [],
    },
    30_000,
    () => clock.now,
  );
  return { cache, asked, clock };
}

describe("the console's member cache", () => {
  it('asks a member once until it changes, and tabs asking at the same time share the query', async () => {
    const { cache, asked } = cacheWith({ root: 'idle', child: 'running' });
    await Promise.all([cache.snapshot('root'), cache.snapshot('root'), cache.snapshot('child')]);
    await cache.snapshot('root');
    expect(asked).toEqual(['root', 'child']);

    const version = cache.version;
    cache.changed('child');
    expect(cache.version).not.toBe(version);
    await Promise.all([cache.snapshot('root'), cache.snapshot('child')]);
    expect(asked).toEqual(['root', 'child', 'child']);
    expect(Object.fromEntries(cache.asked)).toEqual({ root: 1, child: 2 });
  });

  it('asks a running member again after its age, but never an ended one', async () => {
    const { cache, asked, clock } = cacheWith({ working: 'running', done: 'completed' });
    await Promise.all([cache.snapshot('working'), cache.snapshot('done')]);
    clock.now += 31_000;
    await Promise.all([cache.snapshot('working'), cache.snapshot('done')]);
    expect(asked).toEqual(['working', 'done', 'working']);
  });

  it('keeps no failed answer', async () => {
    const { cache, asked } = cacheWith({});
    await expect(cache.snapshot('gone')).rejects.toThrow('no gone');
    await expect(cache.snapshot('gone')).rejects.toThrow('no gone');
    expect(asked).toEqual(['gone', 'gone']);
  });
});
