import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestArbor, ScriptedModel, text, toolCall, type TestArbor } from '../../src/testing.js';
import { runHistories } from '../support/run-histories.js';

/** Temporal warns about a workflow run whose history passes this many events. */
const historyWarningThreshold = 10_240;

describe('a loop that fires 2,000 times (the testing kit on the time-skipping server)', () => {
  const instruction = 'long loop';
  // A responder, not a script for the instruction: once a run continues as new with its transcript cut short, the
  // model's requests no longer start with the instruction, so they would not find its script.
  const model = new ScriptedModel((request) => {
    if (request.toolResults.length > 0) return text('Created.');
    if (request.lastUserMessage === instruction) return toolCall('createLoop', { prompt: 'Tick', interval_seconds: 10, max_turns: 2_000 });
    return text('Ticked.');
  });
  let arbor: TestArbor;

  beforeAll(async () => {
    arbor = await createTestArbor({ model, modelName: 'long-model', workflowBundlePath: inject('workflowBundlePath') });
  });

  afterAll(async () => {
    await arbor?.teardown();
  });

  it('counts every firing exactly across several continue-as-new runs, each under the history warning', async () => {
    const session = await arbor.startSession({ instruction });
    await arbor.waitUntilIdle(session);

    // About 90 s on an idle 2-core machine; several times that when other heavy tests share it.
    await arbor.fastForward(session, '6 hours', { timeoutMs: 540_000 });

    const snapshot = await arbor.waitUntilIdle(session, { timeoutMs: 60_000 });
    expect(snapshot.loops[0]).toMatchObject({ firings: 2_000, status: 'exhausted', reason: 'max_turns reached' });
    expect(snapshot.turn).toBe(2_001);
    const runs = (await runHistories(arbor.env.client, session.id)).map((events) => events.length);
    expect(runs.length).toBeGreaterThanOrEqual(3);
    for (const events of runs) expect(events).toBeLessThan(historyWarningThreshold);
  }, 720_000);
});
