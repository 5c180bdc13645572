import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { ArborClient } from '../../src/client.js';
import type { MemoryWriteCall } from '../../src/activities/memory.js';
import { createMemoryAccess } from '../../src/client/access/memory.js';
import { call, toolResults } from '../support/scripted-model.js';
import { scriptedTimeSkipping } from '../support/scripted-time-skipping.js';
import { withWorker } from '../support/time-skipping.js';

describe('a memory write whose activity fails for good (time-skipping server, scripted model)', () => {
  const scripted = scriptedTimeSkipping('settled-writes-model');
  const { fake, model } = scripted;
  const content = 'The build runs on Fridays.';

  /** A session saves one memory while every attempt of its write activity loses its reply; a late copy follows. */
  async function saveWithFailingActivity(owner: string, firstAttemptWrites: boolean) {
    const instruction = scripted.unique('remember despite faults');
    model.script(instruction, call('saveMemory', { content }), { content: 'Done.' });
    let attempts = 0;
    let updateId = '';
    return withWorker(
      scripted.env,
      scripted.settings,
      async (taskQueue) => {
        const arbor = new ArborClient(scripted.env.client, taskQueue);
        const session = await arbor.startSession({ instruction, owner });
        await session.waitUntilIdle({ timeoutMs: 90_000 });
        const result = toolResults(fake.requestsFor(instruction)[1]!)[0]!;
        // A copy of the write that was still on its way when the session gave up on it.
        const late = await createMemoryAccess(scripted.env.client, taskQueue).write(
          owner,
          { op: 'save', args: { content }, session_id: 'late' },
          updateId,
        );
        const memories = await arbor.memories(owner).list();
        return { result, attempts, late, stored: memories.memories.map((memory) => memory.content) };
      },
      {},
      {
        writeMemory: async (write: MemoryWriteCall) => {
          attempts += 1;
          updateId = write.update_id;
          if (firstAttemptWrites && attempts === 1) {
            await createMemoryAccess(scripted.env.client, Context.current().info.taskQueue).write(
              write.owner,
              write.request,
              write.update_id,
            );
          }
          // Retried at once: the retry policy's backoff is real time here, and not what the test is about.
          throw ApplicationFailure.create({ message: 'the reply was lost', nextRetryDelay: '10 ms' });
        },
      },
    );
  }

  it('reports the memory saved when an attempt whose reply was lost had saved it, and saves it once', async () => {
    const { result, attempts, late, stored } = await saveWithFailingActivity(`settle-${randomUUID().slice(0, 8)}`, true);
    expect(attempts).toBe(5);
    expect(JSON.parse(result)).toEqual({ memory_id: 'mem-1', saved: true });
    expect(late).toEqual({ ok: true, result: { memory_id: 'mem-1', saved: true } });
    expect(stored).toEqual([content]);
  });

  it('reports the memory not saved when no attempt reached the store, and refuses a late copy of that write', async () => {
    const { result, late, stored } = await saveWithFailingActivity(`settle-${randomUUID().slice(0, 8)}`, false);
    expect(result).toMatch(/^Error: This write was not applied, and will not be: Activity task failed: the reply was lost/);
    expect(late).toMatchObject({ ok: false, error: expect.stringContaining('was not applied, and will not be') });
    expect(stored).toEqual([]);
  });
});
