import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestArbor, ScriptedModel, text, toolCall, toolCalls, type TestArbor } from '../../src/testing.js';

interface TaskUpdateResult {
  success: boolean;
  task_id: string;
  error?: string;
}

describe('the task board of a session tree (the testing kit on the time-skipping server, scripted model)', () => {
  const model = new ScriptedModel();
  let arbor: TestArbor;

  beforeAll(async () => {
    arbor = await createTestArbor({ model, modelName: 'board-model', workflowBundlePath: inject('workflowBundlePath') });
  });

  afterAll(async () => {
    await arbor?.teardown();
  });

  it('keeps every task from sub-agents writing at once, and refuses a cycle made from two sessions', async () => {
    const root = 'board root';
    const workers = [1, 2, 3].map((n) => `board worker ${n}`);
    model.forInstruction(
      root,
      toolCalls(...workers.map((instruction, index): [string, unknown] => ['subAgent', { title: `Worker ${index + 1}`, instruction }])),
      text('Workers started.'),
      ...workers.map(() => text('A worker finished.')),
    );
    for (const [index, instruction] of workers.entries()) {
      model.forInstruction(
        instruction,
        toolCalls(...['a', 'b'].map((part): [string, unknown] => ['TaskCreate', { subject: `worker ${index + 1} ${part}` }])),
        (request) => {
          const [a, b] = (request.toolResults.slice(-2) as { task: { id: string } }[]).map((result) => result.task.id);
          return toolCalls(
            ['TaskUpdate', { task_id: a, addBlocks: [b], owner: `worker ${index + 1}` }],
            ['TaskUpdate', { task_id: b, addBlocks: [a], owner: `worker ${index + 1}` }],
          );
        },
        toolCall('TaskList', {}),
        text('Worker done.'),
      );
    }
    const session = await arbor.startSession({ profile: 'all', instruction: root });
    await arbor.settle(session);
    const snapshot = await arbor.waitUntilIdle(session);
    expect(snapshot.children.map((child) => child.status)).toEqual(['completed', 'completed', 'completed']);
    const { tasks } = snapshot;
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
      const requests = model.requestsFor(instruction);
      const updates = requests[2]!.toolResults.slice(-2) as TaskUpdateResult[];
      expect(updates.filter((update) => update.success)).toHaveLength(1);
      expect(updates.find((update) => !update.success)?.error).toMatch(/would make a cycle .*; nothing was changed\./);
      const listed = (requests[3]!.toolResults.at(-1) as { tasks: { id: string; owner: string | null }[] }).tasks;
      const owned = listed.filter((task) => task.owner === `worker ${index + 1}`).map((task) => task.id);
      expect(owned).toEqual([updates.find((update) => update.success)!.task_id]);
    }
    const events = (await arbor.events(session)).filter((event) => event.type === 'task_updated');
    expect(events.length).toBeGreaterThanOrEqual(9);
  });
});
