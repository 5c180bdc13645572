import { describe, expect, it } from 'vitest';
import { call } from '../support/scripted-model.js';
import type { RecordedRequest } from '../support/fake-openai.js';
import { withWorker } from '../support/time-skipping.js';
import { scriptedTimeSkipping } from '../support/scripted-time-skipping.js';
import { waitUntil } from '../support/wait.js';
import { runHistories } from '../support/run-histories.js';
import { waitUntilSettled } from '../support/settle.js';

// Its own file, so its own time-skipping server (see goal-continue-as-new.test.ts): it waits on the model's requests,
// not on queries, while the runs continue as new.
describe('Plan mode across continue-as-new (time-skipping server, scripted model)', () => {
  const scripted = scriptedTimeSkipping('plan-run-model');
  const { fake, model } = scripted;
  const names = (request: RecordedRequest) => request.body.tools?.map((tool) => tool.function.name) ?? [];

  it('keeps a session in Plan mode in its next runs, and in Execute mode once executePlan switched it', async () => {
    const instruction = scripted.unique('plan over many runs');
    model.script(
      instruction,
      call('createGoal', { condition: 'Twenty planning steps', max_turns: 20 }),
      ...Array.from({ length: 20 }, (_, index) => ({ content: `plan step ${index}` })),
      call('createGoal', { condition: 'Twenty doing steps', max_turns: 20 }),
      ...Array.from({ length: 20 }, (_, index) => ({ content: `do step ${index}` })),
    );
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await scripted.start(taskQueue, { instruction, history_limit: 100, work_mode: 'plan' });
      await waitUntil(() => fake.requestsFor(instruction).length === 21, 90_000);
      await waitUntilSettled(scripted.env.client, session.id);
      expect((await session.waitUntilIdle({ timeoutMs: 30_000 })).work_mode).toBe('plan');
      const planningRuns = (await runHistories(scripted.env.client, session.id)).length;
      expect(planningRuns).toBeGreaterThanOrEqual(2);
      expect(names(fake.requestsFor(instruction).at(-1)!)).not.toContain('deleteMemory');

      await session.executePlan();
      await waitUntil(() => fake.requestsFor(instruction).length === 42, 90_000);
      await waitUntilSettled(scripted.env.client, session.id);
      expect((await session.waitUntilIdle({ timeoutMs: 30_000 })).work_mode).toBe('execute');
      expect((await runHistories(scripted.env.client, session.id)).length).toBeGreaterThan(planningRuns);
      expect(names(fake.requestsFor(instruction).at(-1)!)).toContain('deleteMemory');
    });
  });
});
