import { describe, expect, it } from 'vitest';
import { maxMemoriesPerOwner, maxMemoryLength, saveMemory, updateMemory, type MemoryRecord } from '../../src/shared/tools/memory.js';
import { MemoryStore } from '../../src/workflows/memory-store.js';

let tick = 0;
const clock = () => new Date(Date.UTC(2026, 0, 1, 0, 0, tick++));

function store() {
  const memories = new MemoryStore(clock);
  const save = (content: string, tags?: string[]) => {
    const reply = memories.write({ op: 'save', session_id: 's1', args: saveMemory.input.parse({ content, ...(tags ? { tags } : {}) }) });
    if (!reply.ok) throw new Error(reply.error);
    return (reply.result as { memory_id: string }).memory_id;
  };
  const search = (query: string, limit = 5) =>
    (memories.read({ op: 'search', args: { query, limit } }) as { results: (MemoryRecord & { score: number })[] }).results;
  return { memories, save, search };
}

describe('the memory store', () => {
  it('ranks the memory that answers the query first, with descending scores', () => {
    const { save, search } = store();
    save('The user prefers tea over coffee in the morning.', ['drinks']);
    const best = save('Deployments go to the Frankfurt region because of GDPR.', ['infra', 'deploy']);
    save('The user lives in Berlin and works remotely.');
    save('Coffee machine in the office is broken.');
    save('Region names: Frankfurt is eu-central-1.', ['aws']);
    const results = search('which region do we deploy to');
    expect(results[0]!.memory_id).toBe(best);
    const scores = results.map((result) => result.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(scores[0]!).toBeGreaterThan(0);
    expect(search('tea')[0]!.content).toContain('tea');
    expect(search('zebra')).toEqual([]);
  });

  it('finds memories by tag as well as by content', () => {
    const { save, search } = store();
    save('Use pnpm for this repository.', ['tooling']);
    const tagged = save('Run the linter before each commit.', ['tooling', 'git']);
    expect(search('git')[0]!.memory_id).toBe(tagged);
  });

  it('lists newest first, by tag, up to a limit', () => {
    const { memories, save } = store();
    const first = save('one', ['a']);
    save('two');
    const third = save('three', ['a']);
    expect(memories.read({ op: 'list', args: { limit: 20 } })).toMatchObject({
      total: 3,
      memories: [{ content: 'three' }, { content: 'two' }, { content: 'one' }],
    });
    expect(memories.read({ op: 'list', args: { tag: 'a', limit: 1 } })).toMatchObject({ total: 2, memories: [{ memory_id: third }] });
    expect(
      (memories.read({ op: 'list', args: { tag: 'a', limit: 5 } }) as { memories: MemoryRecord[] }).memories.map((m) => m.memory_id),
    ).toEqual([third, first]);
  });

  it('updates content and tags, records who changed it, and deletes', () => {
    const { memories, save, search } = store();
    const id = save('Old fact');
    const updated = memories.write({
      op: 'update',
      session_id: 's2',
      args: updateMemory.input.parse({ memory_id: id, content: 'New fact about llamas', tags: ['animals'] }),
    });
    expect(updated).toEqual({ ok: true, result: { memory_id: id, updated_fields: ['content', 'tags'] } });
    expect(search('llamas')[0]).toMatchObject({ memory_id: id, session_id: 's1', updated_by: 's2', tags: ['animals'] });
    expect(memories.write({ op: 'delete', session_id: 's2', args: { memory_id: id } })).toEqual({
      ok: true,
      result: { memory_id: id, deleted: true },
    });
    expect(search('llamas')).toEqual([]);
  });

  it('refuses unknown ids and more memories than the per-owner limit, changing nothing', () => {
    const { memories, save } = store();
    expect(memories.write({ op: 'delete', session_id: 's', args: { memory_id: 'mem-9' } })).toEqual({
      ok: false,
      error: 'No memory mem-9; listMemories or searchMemory give the ids.',
    });
    expect(memories.write({ op: 'update', session_id: 's', args: { memory_id: 'mem-9', content: 'x' } })).toMatchObject({ ok: false });
    for (let i = 0; i < maxMemoriesPerOwner; i++) save(`fact ${i}`);
    expect(memories.write({ op: 'save', session_id: 's', args: { content: 'one too many' } })).toEqual({
      ok: false,
      error: `This user already has ${maxMemoriesPerOwner} memories, the most allowed: update or delete old ones first.`,
    });
    expect(memories.memories).toHaveLength(maxMemoriesPerOwner);
  });

  it.each([
    ['empty content', { content: '   ' }, 'content is empty'],
    ['content over the limit', { content: 'x'.repeat(maxMemoryLength + 1) }, `content is at most ${maxMemoryLength} characters`],
    ['eleven tags', { content: 'x', tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, 'at most 10 tags'],
  ])('refuses %s in saveMemory', (_case, args, message) => {
    const parsed = saveMemory.input.safeParse(args);
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.message).toBe(message);
  });

  it('accepts content of exactly the limit, and refuses an update with nothing to change', () => {
    expect(saveMemory.input.safeParse({ content: 'x'.repeat(maxMemoryLength) }).success).toBe(true);
    expect(updateMemory.input.safeParse({ memory_id: 'mem-1' }).error!.issues[0]!.message).toBe('give a new content, new tags, or both');
  });

  it('keeps memories and numbering across continue-as-new', () => {
    const { memories, save } = store();
    save('kept');
    const next = new MemoryStore(clock, memories.carry());
    expect(next.write({ op: 'save', session_id: 's', args: { content: 'after' } })).toEqual({
      ok: true,
      result: { memory_id: 'mem-2', saved: true },
    });
  });
});
