import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestArbor, ScriptedModel, text, toolCall, type TestArbor } from '../../src/testing.js';
import { runHistories } from '../support/run-histories.js';
import { waitUntil } from '../support/wait.js';

const subSessionIdOf = (result: unknown) => (result as { sub_session_id: string }).sub_session_id;

/**
 * In its own environment: on a time-skipping server shared with tests that stop sessions mid model call, the stopped
 * sessions' cancelled calls hold the clock, and the 25 firings below would wait in real time (minutes, not seconds).
 */
describe('a sub-agent kept alive by its loop (the testing kit on the time-skipping server)', () => {
  const model = new ScriptedModel();
  let arbor: TestArbor;
  const unique = (label: string) => `${label} ${randomUUID()}`;

  beforeAll(async () => {
    arbor = await createTestArbor({ model, modelName: 'tree-model', workflowBundlePath: inject('workflowBundlePath') });
  });

  afterAll(async () => {
    await arbor?.teardown();
  });

  it('continues a sub-agent that its loop keeps alive as new once its run is long, and its sync parent still gets its answer', async () => {
    const root = unique('root of a ticker');
    const child = unique('ticker');
    model.forInstruction(root, toolCall('subAgent', { title: 'Ticker', instruction: child, mode: 'sync' }), text('The ticker is done.'));
    model.forInstruction(
      child,
      toolCall('createLoop', { prompt: 'Tick', interval_seconds: 10, max_turns: 25 }),
      text('Loop set.'),
      ...Array.from({ length: 25 }, (_, index) => text(`tick ${index}`)),
    );
    const session = await arbor.startSession({ profile: 'all', instruction: root, history_limit: 100 });
    await waitUntil(() => model.requestsFor(child).length >= 2, 30_000);

    // 25 firings, ten seconds apart, on the server's skipped clock.
    await arbor.fastForward(session, '10 minutes', { timeoutMs: 120_000 });

    const snapshot = await arbor.waitUntilIdle(session, { timeoutMs: 120_000 });
    expect(snapshot.last_message?.content).toBe('The ticker is done.');
    const result = model.requestsFor(root)[1]!.toolResults[0];
    expect(result).toMatchObject({ status: 'completed', content: 'tick 24' });

    // The sub-agent ran in several runs, each ended by continuing as new near the limit it was handed.
    const runs = (await runHistories(arbor.env.client, subSessionIdOf(result))).map((events) => events.length);
    expect(runs.length).toBeGreaterThanOrEqual(3);
    for (const events of runs) expect(events).toBeLessThan(150);
    const ticks = (await arbor.transcript(subSessionIdOf(result))).filter(
      (entry) => entry.role === 'assistant' && entry.content.startsWith('tick '),
    );
    expect(ticks.at(-1)!.content).toBe('tick 24');
  }, 300_000);
});
