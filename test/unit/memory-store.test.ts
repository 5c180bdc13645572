import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresMemoryStore } from '../../src/client/access/postgres-memory/store.js';
import { parseMemoryWrite } from '../../src/shared/memory-requests.js';
import type { ToolReply } from '../../src/shared/tool-reply.js';
import {
  maxMemoriesPerOwner,
  maxMemoryLength,
  saveMemory,
  updateMemory,
  type MemoryRead,
  type MemoryRecord,
  type MemoryWriteRequest,
} from '../../src/shared/tools/memory.js';
import { MemoryStore } from '../../src/workflows/memory-store.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';

let tick = 0;
const clock = () => new Date(Date.UTC(2026, 0, 1, 0, 0, tick++));

/** One owner's memories in one of the two stores, through the same calls. */
interface OwnerStore {
  write(request: MemoryWriteRequest): Promise<ToolReply<unknown>>;
  read(request: MemoryRead): Promise<unknown>;
}

interface StoreKind {
  name: string;
  /** The store's per-owner cap (the PostgreSQL one is configurable: a small one here keeps the test short). */
  cap: number;
  open(): OwnerStore;
}

let postgres: TestPostgres | undefined;
let database: PostgresMemoryStore | undefined;
const postgresCap = 30;

beforeAll(async () => {
  postgres = await startPostgres();
  database = new PostgresMemoryStore({ databaseUrl: postgres.connectionString, maxMemoriesPerOwner: postgresCap, now: clock });
}, 180_000);

afterAll(async () => {
  await database?.close();
  await postgres?.stop();
});

const kinds: StoreKind[] = [
  {
    name: 'the workflow store',
    cap: maxMemoriesPerOwner,
    open() {
      // As the memory workflow applies a write: checked against the tool's schema, then applied.
      const memories = new MemoryStore(clock);
      return {
        write: async (request) => {
          const parsed = parseMemoryWrite(request);
          return parsed.ok ? memories.write(parsed.result) : parsed;
        },
        read: async (request) => memories.read(request),
      };
    },
  },
  {
    name: 'the PostgreSQL store',
    cap: postgresCap,
    open() {
      const owner = `owner-${randomUUID()}`;
      return {
        write: (request) => database!.write(owner, request, randomUUID()),
        read: (request) => database!.read(owner, request),
      };
    },
  },
];

function helpers(memories: OwnerStore) {
  const save = async (content: string, tags?: string[]) => {
    const reply = await memories.write({ op: 'save', session_id: 's1', args: { content, ...(tags ? { tags } : {}) } });
    if (!reply.ok) throw new Error(reply.error);
    return (reply.result as { memory_id: string }).memory_id;
  };
  const search = async (query: string, limit = 5) =>
    ((await memories.read({ op: 'search', args: { query, limit } })) as { results: (MemoryRecord & { score: number })[] }).results;
  const list = (args: { tag?: string; limit: number }) =>
    memories.read({ op: 'list', args }) as Promise<{ total: number; memories: MemoryRecord[] }>;
  return { save, search, list };
}

describe.each(kinds)('$name', (kind) => {
  it('ranks the memory that answers the query first, with descending scores', async () => {
    const { save, search } = helpers(kind.open());
    await save('The user prefers tea over coffee in the morning.', ['drinks']);
    const best = await save('Deployments go to the Frankfurt region because of GDPR.', ['infra', 'deploy']);
    await save('The user lives in Berlin and works remotely.');
    await save('Coffee machine in the office is broken.');
    await save('Region names: Frankfurt is eu-central-1.', ['aws']);
    const results = await search('which region do we deploy to');
    expect(results[0]!.memory_id).toBe(best);
    const scores = results.map((result) => result.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(scores[0]!).toBeGreaterThan(0);
    expect((await search('tea'))[0]!.content).toContain('tea');
    expect(await search('zebra')).toEqual([]);
  });

  it('finds memories by tag as well as by content', async () => {
    const { save, search } = helpers(kind.open());
    await save('Use pnpm for this repository.', ['tooling']);
    const tagged = await save('Run the linter before each commit.', ['tooling', 'git']);
    expect((await search('git'))[0]!.memory_id).toBe(tagged);
  });

  it('takes any text as a query, operators and quotes included, as plain words', async () => {
    const { save, search } = helpers(kind.open());
    const id = await save("O'Brien's notes: use the staging cluster & never prod!", ['ops']);
    for (const query of ["O'Brien's", 'staging & | ! :* ( )', '"unclosed quote', "'; DROP TABLE arbor_memories; --", '\\ backslash \\']) {
      const results = await search(query);
      expect(Array.isArray(results)).toBe(true);
      if (query.includes('staging') || query.includes('Brien')) expect(results[0]?.memory_id).toBe(id);
    }
    expect((await search('notes'))[0]!.memory_id).toBe(id);
  });

  it('lists newest first, by tag, up to a limit', async () => {
    const { save, list } = helpers(kind.open());
    const first = await save('one', ['a']);
    await save('two');
    const third = await save('three', ['a']);
    expect(await list({ limit: 20 })).toMatchObject({
      total: 3,
      memories: [{ content: 'three' }, { content: 'two' }, { content: 'one' }],
    });
    expect(await list({ tag: 'a', limit: 1 })).toMatchObject({ total: 2, memories: [{ memory_id: third }] });
    expect((await list({ tag: 'a', limit: 5 })).memories.map((m) => m.memory_id)).toEqual([third, first]);
  });

  it('updates content and tags, records who changed it, and deletes', async () => {
    const memories = kind.open();
    const { save, search } = helpers(memories);
    const id = await save('Old fact');
    const updated = await memories.write({
      op: 'update',
      session_id: 's2',
      args: updateMemory.input.parse({ memory_id: id, content: 'New fact about llamas', tags: ['animals'] }),
    });
    expect(updated).toEqual({ ok: true, result: { memory_id: id, updated_fields: ['content', 'tags'] } });
    expect(await memories.write({ op: 'update', session_id: 's3', args: { memory_id: id, tags: ['animals'] } })).toEqual({
      ok: true,
      result: { memory_id: id, updated_fields: [] },
    });
    expect((await search('llamas'))[0]).toMatchObject({ memory_id: id, session_id: 's1', updated_by: 's2', tags: ['animals'] });
    expect(await memories.write({ op: 'delete', session_id: 's2', args: { memory_id: id } })).toEqual({
      ok: true,
      result: { memory_id: id, deleted: true },
    });
    expect(await search('llamas')).toEqual([]);
  });

  it('refuses unknown ids and more memories than the per-owner limit, changing nothing', async () => {
    const memories = kind.open();
    const { save, list } = helpers(memories);
    for (const memory_id of ['mem-9', 'not-an-id']) {
      expect(await memories.write({ op: 'delete', session_id: 's', args: { memory_id } })).toEqual({
        ok: false,
        error: `No memory ${memory_id}; listMemories or searchMemory give the ids.`,
      });
    }
    expect(await memories.write({ op: 'update', session_id: 's', args: { memory_id: 'mem-9', content: 'x' } })).toMatchObject({
      ok: false,
    });
    for (let i = 0; i < kind.cap; i++) await save(`fact ${i}`);
    expect(await memories.write({ op: 'save', session_id: 's', args: { content: 'one too many' } })).toEqual({
      ok: false,
      error: `This user already has ${kind.cap} memories, the most allowed: update or delete old ones first.`,
    });
    expect((await list({ limit: 1 })).total).toBe(kind.cap);
  });

  it.each([
    ['empty content', { content: '   ' }, 'content is empty'],
    ['content over the limit', { content: 'x'.repeat(maxMemoryLength + 1) }, `content is at most ${maxMemoryLength} characters`],
    ['eleven tags', { content: 'x', tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, 'at most 10 tags'],
  ])('refuses %s in saveMemory with the same error', async (_case, args, message) => {
    const memories = kind.open();
    expect(await memories.write({ op: 'save', session_id: 's', args: args as { content: string } })).toEqual({
      ok: false,
      error: `Invalid save arguments: ${message}`,
    });
    expect(await helpers(memories).list({ limit: 5 })).toEqual({ total: 0, memories: [] });
  });

  it('keeps content of exactly the limit and trims it and lower-cases tags as the tool schema does', async () => {
    const memories = kind.open();
    const { save, list } = helpers(memories);
    await save(`  ${'x'.repeat(maxMemoryLength)}  `, ['Infra', 'infra']);
    expect((await list({ limit: 1 })).memories[0]).toMatchObject({ content: 'x'.repeat(maxMemoryLength), tags: ['infra'] });
  });
});

describe('the schemas both stores check writes with', () => {
  it('refuses an update with nothing to change', () => {
    expect(saveMemory.input.safeParse({ content: 'x'.repeat(maxMemoryLength) }).success).toBe(true);
    expect(updateMemory.input.safeParse({ memory_id: 'mem-1' }).error!.issues[0]!.message).toBe('give a new content, new tags, or both');
  });
});

describe('the workflow store alone', () => {
  it('keeps memories and numbering across continue-as-new', () => {
    const memories = new MemoryStore(clock);
    memories.write({ op: 'save', session_id: 's', args: { content: 'kept' } });
    const next = new MemoryStore(clock, memories.carry());
    expect(next.write({ op: 'save', session_id: 's', args: { content: 'after' } })).toEqual({
      ok: true,
      result: { memory_id: 'mem-2', saved: true },
    });
  });
});

describe('the PostgreSQL store alone', () => {
  const save = (owner: string, content: string, key: string = randomUUID()) =>
    database!.write(owner, { op: 'save', session_id: 's', args: { content } }, key);
  const listOf = async (owner: string) =>
    (await database!.read(owner, { op: 'list', args: { limit: 100 } })) as { total: number; memories: MemoryRecord[] };

  it('never shows, changes or deletes one owner’s memories for another owner', async () => {
    const alice = `alice-${randomUUID()}`;
    const bob = `bob-${randomUUID()}`;
    await save(alice, 'Alice keeps the launch codes in the blue folder.');
    const bobs = await save(bob, 'Bob likes the blue folder too.');
    expect(bobs).toEqual({ ok: true, result: { memory_id: 'mem-1', saved: true } });
    // The same id names each owner's own memory.
    expect(
      await database!.write(bob, { op: 'update', session_id: 's', args: { memory_id: 'mem-1', content: 'changed' } }, randomUUID()),
    ).toMatchObject({ ok: true });
    expect(await database!.write(bob, { op: 'delete', session_id: 's', args: { memory_id: 'mem-1' } }, randomUUID())).toMatchObject({
      ok: true,
    });
    expect(await database!.write(bob, { op: 'delete', session_id: 's', args: { memory_id: 'mem-1' } }, randomUUID())).toMatchObject({
      ok: false,
    });
    const search = (owner: string) => database!.read(owner, { op: 'search', args: { query: 'launch codes blue folder', limit: 5 } });
    expect(await search(bob)).toEqual({ results: [] });
    expect(await listOf(bob)).toEqual({ total: 0, memories: [] });
    expect(await listOf(alice)).toMatchObject({ total: 1, memories: [{ content: 'Alice keeps the launch codes in the blue folder.' }] });
    expect(((await search(alice)) as { results: unknown[] }).results).toHaveLength(1);
  });

  it('keeps every concurrent save of one owner, numbered once each, and stops exactly at the cap', async () => {
    const owner = `busy-${randomUUID()}`;
    const replies = await Promise.all(Array.from({ length: postgresCap + 10 }, (_, i) => save(owner, `fact ${i}`)));
    const saved = replies.filter((reply) => reply.ok);
    expect(saved).toHaveLength(postgresCap);
    expect(new Set(saved.map((reply) => (reply.result as { memory_id: string }).memory_id)).size).toBe(postgresCap);
    expect(replies.filter((reply) => !reply.ok)).toHaveLength(10);
    expect((await listOf(owner)).total).toBe(postgresCap);
  });

  it('applies a write sent again with its key once, answering it as the first time, even concurrently', async () => {
    const owner = `retry-${randomUUID()}`;
    const replies = await Promise.all([1, 2, 3, 4].map(() => save(owner, 'written once', 'tool-call-1')));
    expect(new Set(replies.map((reply) => JSON.stringify(reply))).size).toBe(1);
    expect(await save(owner, 'written once', 'tool-call-1')).toEqual(replies[0]);
    expect((await listOf(owner)).memories.map((memory) => memory.content)).toEqual(['written once']);
  });

  it('settles a write given up on: its reply when it was applied, else a refusal that a late copy also gets', async () => {
    const owner = `settle-${randomUUID()}`;
    const applied = await save(owner, 'applied before the sender gave up', 'applied-key');
    expect(await database!.abandon(owner, 'applied-key', 'timed out')).toEqual(applied);
    const refusal = { ok: false, error: 'This write was not applied, and will not be: timed out' };
    expect(await database!.abandon(owner, 'lost-key', 'timed out')).toEqual(refusal);
    expect(await save(owner, 'a copy arriving late', 'lost-key')).toEqual(refusal);
    expect((await listOf(owner)).total).toBe(1);
  });

  it('creates its schema once when several stores start on a new database at once', async () => {
    const name = `fresh_${randomUUID().replace(/-/g, '')}`;
    await postgres!.sql(`CREATE DATABASE ${name}`);
    const databaseUrl = postgres!.connectionString.replace(/\/postgres$/, `/${name}`);
    const stores = [1, 2, 3].map(() => new PostgresMemoryStore({ databaseUrl }));
    try {
      await Promise.all(stores.map((store) => store.ready()));
      const owner = `fresh-${randomUUID()}`;
      await stores[1]!.write(owner, { op: 'save', session_id: 's', args: { content: 'seen by every store' } }, randomUUID());
      expect(((await stores[2]!.read(owner, { op: 'list', args: { limit: 5 } })) as { total: number }).total).toBe(1);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });
});
