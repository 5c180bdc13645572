import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SessionInput } from '../../src/shared/session.js';
import { call, toolResults } from '../support/scripted-model.js';
import { withWorker } from '../support/time-skipping.js';
import { scriptedTimeSkipping } from '../support/scripted-time-skipping.js';
import { waitUntil } from '../support/wait.js';

describe('the task board of a session tree (time-skipping server, scripted model)', () => {
  const scripted = scriptedTimeSkipping('board-model');
  const { fake, model } = scripted;

  const start = (taskQueue: string, input: SessionInput) => scripted.start(taskQueue, input);

  it('keeps every task from sub-agents writing at once, and refuses a cycle made from two sessions', async () => {
    const root = `board root ${randomUUID()}`;
    const workers = [1, 2, 3].map((n) => `board worker ${n} ${randomUUID()}`);
    model.script(
      root,
      {
        toolCalls: workers.map((instruction, index) => ({
          name: 'subAgent',
          arguments: JSON.stringify({ title: `Worker ${index + 1}`, instruction }),
        })),
      },
      { content: 'Workers started.' },
      ...workers.map(() => ({ content: 'A worker finished.' })),
    );
    for (const [index, instruction] of workers.entries()) {
      model.script(
        instruction,
        {
          toolCalls: ['a', 'b'].map((part) => ({
            name: 'TaskCreate',
            arguments: JSON.stringify({ subject: `worker ${index + 1} ${part}` }),
          })),
        },
        (request) => {
          const [a, b] = toolResults(request)
            .slice(-2)
            .map((result) => JSON.parse(result).task.id as string);
          return {
            toolCalls: [
              { name: 'TaskUpdate', arguments: JSON.stringify({ task_id: a, addBlocks: [b], owner: `worker ${index + 1}` }) },
              { name: 'TaskUpdate', arguments: JSON.stringify({ task_id: b, addBlocks: [a], owner: `worker ${index + 1}` }) },
            ],
          };
        },
        call('TaskList', {}),
        { content: 'Worker done.' },
      );
    }
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction: root });
      await waitUntil(async () => {
        const snapshot = await session.snapshot();
        return (
          snapshot.status === 'idle' &&
          snapshot.children.length === 3 &&
          snapshot.children.every((child) => child.status === 'completed') &&
          snapshot.queued_messages === 0
        );
      }, 60_000);
      const { tasks } = await session.snapshot();
      expect(tasks.map((task) => task.id).sort((x, y) => Number(x) - Number(y))).toEqual(['1', '2', '3', '4', '5', '6']);
      expect(tasks.map((task) => task.subject).sort()).toEqual([
        'worker 1 a',
        'worker 1 b',
        'worker 2 a',
        'worker 2 b',
        'worker 3 a',
        'worker 3 b',
      ]);
      for (const [index, instruction] of workers.entries()) {
        const updates = toolResults(fake.requestsFor(instruction)[2]!)
          .slice(-2)
          .map((result) => JSON.parse(result));
        expect(updates.filter((update) => update.success)).toHaveLength(1);
        expect(updates.find((update) => !update.success)?.error).toMatch(/would make a cycle .*; nothing was changed\./);
        const listed = JSON.parse(toolResults(fake.requestsFor(instruction)[3]!).at(-1)!).tasks as { id: string; owner: string | null }[];
        const owned = listed.filter((task) => task.owner === `worker ${index + 1}`).map((task) => task.id);
        expect(owned).toEqual([updates.find((update) => update.success).task_id]);
      }
      const events = [];
      for await (const event of session.events({ follow: false })) if (event.type === 'task_updated') events.push(event);
      expect(events.length).toBeGreaterThanOrEqual(9);
    });
  });
});
