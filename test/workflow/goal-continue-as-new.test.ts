import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestArbor, ScriptedModel, text, toolCall, type TestArbor } from '../../src/testing.js';
import { runHistories } from '../support/run-histories.js';
import { waitUntil } from '../support/wait.js';

// Its own file, so its own time-skipping server: a query that reaches the Java test server while a run continues as new
// can go unanswered and leave the server's time skipping locked for good. This test therefore waits on the model's
// requests, not on queries, until the session has made its last one; the kit's helpers then read it once it is still.
describe('a goal driving turns across runs (the testing kit on the time-skipping server, scripted model)', () => {
  const model = new ScriptedModel();
  let arbor: TestArbor;

  beforeAll(async () => {
    arbor = await createTestArbor({ model, modelName: 'goal-run-model', workflowBundlePath: inject('workflowBundlePath') });
  });

  afterAll(async () => {
    await arbor?.teardown();
  });

  it('continues as new between the turns a goal drives once the run is long, though the session is never idle', async () => {
    const instruction = 'goal long run';
    model.forInstruction(
      instruction,
      toolCall('createGoal', { condition: 'Forty steps done', max_turns: 40 }),
      ...Array.from({ length: 41 }, (_, index) => text(`step ${index}`)),
    );
    const session = await arbor.startSession({ instruction, history_limit: 100 });
    await waitUntil(() => model.requestsFor(instruction).length === 41, 90_000);
    await arbor.settle(session);
    const snapshot = await arbor.waitUntilIdle(session);
    expect(snapshot).toMatchObject({ turn: 40, goals: [{ status: 'exhausted', completed_turns: 40 }] });

    // Each run ended by continuing as new near the limit, not after all 40 turns.
    const runs = (await runHistories(arbor.env.client, session.id)).map((events) => events.length);
    expect(runs.length).toBeGreaterThanOrEqual(3);
    for (const events of runs) expect(events).toBeLessThan(140);
    // Every step is in the transcript once, in order, across the runs.
    expect(
      (await arbor.transcript(session))
        .filter((entry) => entry.role === 'assistant' && entry.content.startsWith('step '))
        .map((entry) => entry.content),
    ).toEqual(Array.from({ length: 40 }, (_, index) => `step ${index}`));
  });
});
