import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createMemoryAccess } from '../../src/client/access/memory.js';
import type { SessionHandle } from '../../src/client/session-handle.js';
import type { SessionOptions } from '../../src/shared/session.js';
import { memoryStoreId } from '../../src/shared/tools/memory.js';
import { createTestArbor, ScriptedModel, text, toolCall, toolCalls, type TestArbor } from '../../src/testing.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';
import { waitUntil } from '../support/wait.js';

const stores = [
  { store: 'the workflow store', postgres: false },
  { store: 'the PostgreSQL store', postgres: true },
];

describe.each(stores)(
  'memories shared by an owner’s sessions (the testing kit on the time-skipping server, scripted model), in $store',
  ({ postgres }) => {
    const model = new ScriptedModel();
    let arbor: TestArbor;
    let database: TestPostgres | undefined;

    beforeAll(async () => {
      if (postgres) database = await startPostgres();
      arbor = await createTestArbor({
        model,
        modelName: 'memory-model',
        workflowBundlePath: inject('workflowBundlePath'),
        ...(database ? { memoryStore: { kind: 'postgres' as const, databaseUrl: database.connectionString } } : {}),
      });
    }, 180_000);

    afterAll(async () => {
      await arbor?.teardown();
      await database?.stop();
    });

    /** The last tool result the model was given in the session's request number `request` (from 0), parsed from JSON. */
    const lastResult = (instruction: string, request: number) => model.requestsFor(instruction)[request]!.toolResults.at(-1);

    async function run(options: SessionOptions): Promise<SessionHandle> {
      const session = await arbor.startSession(options);
      await arbor.waitUntilIdle(session);
      return session;
    }

    it('saves in one session, finds it from another of the same owner, and not from another owner', async () => {
      const owner = `alice-${randomUUID().slice(0, 8)}`;
      const writer = `writer ${randomUUID()}`;
      const reader = `reader ${randomUUID()}`;
      const stranger = `stranger ${randomUUID()}`;
      model.forInstruction(
        writer,
        toolCall('saveMemory', { content: 'Deploy to the Frankfurt region.', tags: ['Infra'] }),
        toolCall('saveMemory', { content: 'The user likes green tea.' }),
        toolCall('updateMemory', { memory_id: 'mem-2', tags: ['drinks'] }),
        toolCall('updateMemory', { memory_id: 'mem-99', content: 'nothing' }),
        text('Saved.'),
      );
      model.forInstruction(
        reader,
        toolCall('searchMemory', { query: 'which region for deployment' }),
        toolCall('listMemories', { tag: 'drinks' }),
        toolCall('deleteMemory', { memory_id: 'mem-1' }),
        toolCall('listMemories', {}),
        text('Read.'),
      );
      model.forInstruction(stranger, toolCall('searchMemory', { query: 'region' }), toolCall('listMemories', {}), text('Nothing here.'));
      const written = await run({ instruction: writer, owner });
      expect(lastResult(writer, 1)).toEqual({ memory_id: 'mem-1', saved: true });
      expect(lastResult(writer, 3)).toEqual({ memory_id: 'mem-2', updated_fields: ['tags'] });
      expect(lastResult(writer, 4)).toBe('Error: No memory mem-99; listMemories or searchMemory give the ids.');

      await run({ instruction: reader, owner });
      const found = (lastResult(reader, 1) as { results: unknown[] }).results;
      expect(found[0]).toMatchObject({
        memory_id: 'mem-1',
        content: 'Deploy to the Frankfurt region.',
        tags: ['infra'],
        session_id: written.id,
        score: expect.any(Number),
      });
      expect(lastResult(reader, 2)).toMatchObject({ total: 1, memories: [{ memory_id: 'mem-2', tags: ['drinks'] }] });
      expect(lastResult(reader, 3)).toEqual({ memory_id: 'mem-1', deleted: true });
      expect(lastResult(reader, 4)).toMatchObject({ total: 1, memories: [{ memory_id: 'mem-2' }] });

      await run({ instruction: stranger, owner: `bob-${randomUUID().slice(0, 8)}` });
      expect(lastResult(stranger, 1)).toEqual({ results: [] });
      expect(lastResult(stranger, 2)).toEqual({ total: 0, memories: [] });

      const fromOutside = arbor.client.memories(owner);
      expect((await fromOutside.list()).memories.map((memory) => memory.content)).toEqual(['The user likes green tea.']);
      expect((await fromOutside.search('green tea'))[0]).toMatchObject({ memory_id: 'mem-2' });
      await fromOutside.delete('mem-2');
      expect(await fromOutside.list()).toEqual({ total: 0, memories: [] });
      await expect(fromOutside.delete('mem-2')).rejects.toThrow('No memory mem-2');
    });

    it('keeps every memory when several sub-agents save at once, for the owner they inherit', async () => {
      const owner = `team-${randomUUID().slice(0, 8)}`;
      const root = `savers ${randomUUID()}`;
      const savers = [1, 2, 3, 4].map((n) => `saver ${n} ${randomUUID()}`);
      model.forInstruction(
        root,
        toolCalls(...savers.map((instruction, index): [string, unknown] => ['subAgent', { title: `Saver ${index + 1}`, instruction }])),
        text('Started.'),
        ...savers.map(() => text('One done.')),
      );
      for (const [index, instruction] of savers.entries()) {
        model.forInstruction(
          instruction,
          toolCalls(...['a', 'b'].map((part): [string, unknown] => ['saveMemory', { content: `fact ${index + 1}${part}` }])),
          text('Saved two.'),
        );
      }
      const session = await arbor.startSession({ instruction: root, owner });
      await arbor.settle(session);
      const snapshot = await arbor.waitUntilIdle(session);
      expect(snapshot.children.map((child) => child.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
      const { total, memories } = await arbor.client.memories(owner).list({ limit: 100 });
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
      if (database) expect(await database.sql(`SELECT count(*) FROM arbor_memories WHERE owner = '${owner}'`)).toBe('8');
    });
  },
);

describe('the workflow store across continue-as-new (the testing kit on the time-skipping server)', () => {
  let arbor: TestArbor;

  beforeAll(async () => {
    arbor = await createTestArbor({ workflowBundlePath: inject('workflowBundlePath') });
  });

  afterAll(async () => {
    await arbor?.teardown();
  });

  it('applies a write retried after the store continued as new once, answering it as the first time', async () => {
    const owner = `retry-${randomUUID().slice(0, 8)}`;
    const access = createMemoryAccess(arbor.env.client, arbor.taskQueue);
    const save = (content: string, updateId: string) =>
      access.write(owner, { op: 'save', session_id: 'retry-test', args: { content } }, updateId);
    const store = arbor.env.client.workflow.getHandle(memoryStoreId(owner));
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
