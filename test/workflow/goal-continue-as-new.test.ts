import { describe, expect, it } from 'vitest';
import { call } from '../support/scripted-model.js';
import { withWorker } from '../support/time-skipping.js';
import { scriptedTimeSkipping } from '../support/scripted-time-skipping.js';
import { waitUntil } from '../support/wait.js';
import { runHistories } from '../support/run-histories.js';
import { waitUntilSettled } from '../support/settle.js';

// Its own file, so its own time-skipping server: a query that reaches the Java test server while a run continues as new
// can go unanswered and leave the server's time skipping locked for good (see waitUntilSettled). This test therefore
// waits on the model's requests, not on queries, until the session has stopped moving.
describe('a goal driving turns across runs (time-skipping server, scripted model)', () => {
  const scripted = scriptedTimeSkipping('goal-run-model');
  const { fake, model } = scripted;

  it('continues as new between the turns a goal drives once the run is long, though the session is never idle', async () => {
    const instruction = scripted.unique('goal long run');
    model.script(
      instruction,
      call('createGoal', { condition: 'Forty steps done', max_turns: 40 }),
      ...Array.from({ length: 41 }, (_, index) => ({ content: `step ${index}` })),
    );
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await scripted.start(taskQueue, { instruction, history_limit: 100 });
      await waitUntil(() => fake.requestsFor(instruction).length === 41, 90_000);
      await waitUntilSettled(scripted.env.client, session.id);
      const snapshot = await session.waitUntilIdle({ timeoutMs: 30_000 });
      expect(snapshot).toMatchObject({ turn: 40, goals: [{ status: 'exhausted', completed_turns: 40 }] });

      // Each run ended by continuing as new near the limit, not after all 40 turns.
      const runs = (await runHistories(scripted.env.client, session.id)).map((events) => events.length);
      expect(runs.length).toBeGreaterThanOrEqual(3);
      for (const events of runs) expect(events).toBeLessThan(140);
      // Every step is in the transcript once, in order, across the runs.
      expect(
        (await session.transcript())
          .filter((entry) => entry.role === 'assistant' && entry.content.startsWith('step '))
          .map((entry) => entry.content),
      ).toEqual(Array.from({ length: 40 }, (_, index) => `step ${index}`));
    });
  });
});
