import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ArborClient } from '../../src/client.js';
import type { SessionHandle } from '../../src/client/session-handle.js';
import type { SessionOptions } from '../../src/shared/session.js';
import { call, toolResults } from '../support/scripted-model.js';
import { withWorker } from '../support/time-skipping.js';
import { scriptedTimeSkipping } from '../support/scripted-time-skipping.js';
import { waitUntil } from '../support/wait.js';
import { createMemoryAccess } from '../../src/client/access/memory.js';
import { memoryStoreId } from '../../src/shared/tools/memory.js';

describe('memories shared by an owner’s sessions (time-skipping server, scripted model)', () => {
  const scripted = scriptedTimeSkipping('memory-model');
  const { fake, model } = scripted;

  const lastResult = (instruction: string, request: number) => toolResults(fake.requestsFor(instruction)[request]!).at(-1)!;

  async function run(arbor: ArborClient, options: SessionOptions): Promise<SessionHandle> {
    const session = await arbor.startSession(options);
    await session.waitUntilIdle({ timeoutMs: 30_000 });
    return session;
  }

  it('saves in one session, finds it from another of the same owner, and not from another owner', async () => {
    const owner = `alice-${randomUUID().slice(0, 8)}`;
    const writer = `writer ${randomUUID()}`;
    const reader = `reader ${randomUUID()}`;
    const stranger = `stranger ${randomUUID()}`;
    model.script(
      writer,
      call('saveMemory', { content: 'Deploy to the Frankfurt region.', tags: ['Infra'] }),
      call('saveMemory', { content: 'The user likes green tea.' }),
      call('updateMemory', { memory_id: 'mem-2', tags: ['drinks'] }),
      call('updateMemory', { memory_id: 'mem-99', content: 'nothing' }),
      { content: 'Saved.' },
    );
    model.script(
      reader,
      call('searchMemory', { query: 'which region for deployment' }),
      call('listMemories', { tag: 'drinks' }),
      call('deleteMemory', { memory_id: 'mem-1' }),
      call('listMemories', {}),
      { content: 'Read.' },
    );
    model.script(stranger, call('searchMemory', { query: 'region' }), call('listMemories', {}), { content: 'Nothing here.' });
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const arbor = new ArborClient(scripted.env.client, taskQueue);
      const written = await run(arbor, { instruction: writer, owner });
      expect(JSON.parse(lastResult(writer, 1))).toEqual({ memory_id: 'mem-1', saved: true });
      expect(JSON.parse(lastResult(writer, 3))).toEqual({ memory_id: 'mem-2', updated_fields: ['tags'] });
      expect(lastResult(writer, 4)).toBe('Error: No memory mem-99; listMemories or searchMemory give the ids.');

      await run(arbor, { instruction: reader, owner });
      const found = JSON.parse(lastResult(reader, 1)).results;
      expect(found[0]).toMatchObject({
        memory_id: 'mem-1',
        content: 'Deploy to the Frankfurt region.',
        tags: ['infra'],
        session_id: written.id,
        score: expect.any(Number),
      });
      expect(JSON.parse(lastResult(reader, 2))).toMatchObject({ total: 1, memories: [{ memory_id: 'mem-2', tags: ['drinks'] }] });
      expect(JSON.parse(lastResult(reader, 3))).toEqual({ memory_id: 'mem-1', deleted: true });
      expect(JSON.parse(lastResult(reader, 4))).toMatchObject({ total: 1, memories: [{ memory_id: 'mem-2' }] });

      await run(arbor, { instruction: stranger, owner: `bob-${randomUUID().slice(0, 8)}` });
      expect(JSON.parse(lastResult(stranger, 1))).toEqual({ results: [] });
      expect(JSON.parse(lastResult(stranger, 2))).toEqual({ total: 0, memories: [] });

      const fromOutside = arbor.memories(owner);
      expect((await fromOutside.list()).memories.map((memory) => memory.content)).toEqual(['The user likes green tea.']);
      expect((await fromOutside.search('green tea'))[0]).toMatchObject({ memory_id: 'mem-2' });
      await fromOutside.delete('mem-2');
      expect(await fromOutside.list()).toEqual({ total: 0, memories: [] });
      await expect(fromOutside.delete('mem-2')).rejects.toThrow('No memory mem-2');
    });
  });

  it('keeps every memory when several sub-agents save at once, for the owner they inherit', async () => {
    const owner = `team-${randomUUID().slice(0, 8)}`;
    const root = `savers ${randomUUID()}`;
    const savers = [1, 2, 3, 4].map((n) => `saver ${n} ${randomUUID()}`);
    model.script(
      root,
      {
        toolCalls: savers.map((instruction, index) => ({
          name: 'subAgent',
          arguments: JSON.stringify({ title: `Saver ${index + 1}`, instruction }),
        })),
      },
      { content: 'Started.' },
      ...savers.map(() => ({ content: 'One done.' })),
    );
    for (const [index, instruction] of savers.entries()) {
      model.script(
        instruction,
        {
          toolCalls: ['a', 'b'].map((part) => ({ name: 'saveMemory', arguments: JSON.stringify({ content: `fact ${index + 1}${part}` }) })),
        },
        { content: 'Saved two.' },
      );
    }
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const arbor = new ArborClient(scripted.env.client, taskQueue);
      const session = await arbor.startSession({ instruction: root, owner });
      await waitUntil(async () => {
        const snapshot = await session.snapshot();
        return (
          snapshot.children.length === 4 &&
          snapshot.children.every((child) => child.status === 'completed') &&
          snapshot.status === 'idle' &&
          snapshot.queued_messages === 0
        );
      }, 60_000);
      const { total, memories } = await arbor.memories(owner).list({ limit: 100 });
      expect(total).toBe(8);
      expect(new Set(memories.map((memory) => memory.memory_id)).size).toBe(8);
      expect(memories.map((memory) => memory.content).sort()).toEqual([
        'fact 1a',
        'fact 1b',
        'fact 2a',
        'fact 2b',
        'fact 3a',
        'fact 3b',
        'fact 4a',
        'fact 4b',
      ]);
      const writers = new Set(memories.map((memory) => memory.session_id));
      expect(writers.size).toBe(4);
      expect(writers.has(session.id)).toBe(false);
    });
  });

  it('applies a write retried after the store continued as new once, answering it as the first time', async () => {
    const owner = `retry-${randomUUID().slice(0, 8)}`;
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const access = createMemoryAccess(scripted.env.client, taskQueue);
      const save = (content: string, updateId: string) =>
        access.write(owner, { op: 'save', session_id: 'retry-test', args: { content } }, updateId);
      const store = scripted.env.client.workflow.getHandle(memoryStoreId(owner));
      const first = await save('Written once, retried later.', 'tool-call-1');
      const firstRun = (await store.describe()).runId;
      // Fill the run up to the writes that make the store continue as new (deleting, to stay under the memory cap).
      for (let i = 0; i < 250; i++) {
        const saved = await save(`filler ${i}`, `filler-save-${i}`);
        if (saved.ok)
          await access.write(
            owner,
            { op: 'delete', session_id: 'retry-test', args: { memory_id: (saved.result as { memory_id: string }).memory_id } },
            `filler-delete-${i}`,
          );
      }
      await waitUntil(async () => (await store.describe()).runId !== firstRun, 30_000);

      expect(await save('Written once, retried later.', 'tool-call-1')).toEqual(first);
      const { memories } = (await access.read(owner, { op: 'list', args: { limit: 100 } })) as { memories: { content: string }[] };
      expect(memories.map((memory) => memory.content)).toEqual(['Written once, retried later.']);
    });
  });
});
