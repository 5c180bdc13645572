import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { taskBoardUpdate } from '../../src/shared/messages.js';
import type { TaskBoardRequest } from '../../src/shared/tools/task-board.js';
import { devServerWorkers } from '../support/dev-server-workers.js';

describe('a sub-agent’s task-board write retried across the root’s continue-as-new (dev server, fake model)', () => {
  const servers = devServerWorkers('sk-board-retry');

  it('applies once, answering the retry as the first time', async () => {
    const instruction = `board across runs ${randomUUID()}`;
    servers.model.script(instruction, ...Array.from({ length: 12 }, (_, index) => ({ content: `Answer ${index}.` })));
    const session = await servers.client.startSession({ instruction, history_limit: 100 });
    const root = servers.client.temporal.workflow.getHandle(session.id);
    await session.waitUntilIdle({ timeoutMs: 30_000 });
    // What a sub-agent's callTaskBoard activity sends: the update id is the tool call's step key.
    const write: TaskBoardRequest = {
      session_id: 'a-sub-agent',
      op: 'create',
      args: { subject: 'Written once', description: 'By a sub-agent.' },
    };
    const updateId = 'a-sub-agent/turn-1/round-1/call-0';
    const first = await root.executeUpdate(taskBoardUpdate, { args: [write], updateId });
    const firstRun = (await root.describe()).runId;
    for (let i = 1; (await root.describe()).runId === firstRun; i++) {
      expect(i, 'the root continues as new within ten turns').toBeLessThan(11);
      await session.waitUntilIdle({ timeoutMs: 30_000, messageId: await session.send(`Message ${i}`) });
    }

    expect(await root.executeUpdate(taskBoardUpdate, { args: [write], updateId })).toEqual(first);
    expect((await session.snapshot()).tasks.map((task) => task.subject)).toEqual(['Written once']);
  });
});
