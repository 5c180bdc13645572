import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelSettings } from '../../src/activities/model-settings.js';
import { SessionHandle } from '../../src/session-handle.js';
import { sessionWorkflowType } from '../../src/shared/session.js';
import type { sessionWorkflow } from '../../src/workflows/session-workflow.js';
import { FakeOpenAI } from '../support/fake-openai.js';
import { call, ScriptedModel } from '../support/scripted-model.js';
import { createTimeSkippingEnvironment, withWorker } from '../support/time-skipping.js';
import { waitUntil } from '../support/wait.js';

/** Temporal warns about a workflow run whose history passes this many events. */
const historyWarningThreshold = 10_240;

describe('a loop that fires 2,000 times (time-skipping server)', () => {
  let env: TestWorkflowEnvironment;
  const fake = new FakeOpenAI();
  let settings: ModelSettings;

  beforeAll(async () => {
    env = await createTimeSkippingEnvironment();
    await fake.start();
    settings = { apiKey: 'sk-long', baseURL: fake.baseURL, defaultModel: 'long-model', requestTimeoutMs: 30_000 };
  });

  afterAll(async () => {
    await env?.teardown();
    await fake.stop();
  });

  it('counts every firing exactly across several continue-as-new runs, each under the history warning', async () => {
    const instruction = `long loop ${randomUUID()}`;
    new ScriptedModel(fake).script(instruction, call('createLoop', { prompt: 'Tick', interval_seconds: 10, max_turns: 2_000 }), { content: 'Created.' });
    const workflowId = randomUUID();
    await withWorker(env, settings, async (taskQueue) => {
      const started = await env.client.workflow.start<typeof sessionWorkflow>(sessionWorkflowType, { workflowId, taskQueue, args: [{ instruction }] });
      const session = new SessionHandle(workflowId, env.client);
      await waitUntil(async () => (await session.snapshot()).loops.length === 1, 30_000);
      await env.sleep('6 hours');
      await waitUntil(async () => (await session.snapshot()).loops[0]?.status === 'exhausted', 300_000);
      const snapshot = await session.waitUntilIdle({ timeoutMs: 60_000 });
      expect(snapshot.loops[0]).toMatchObject({ firings: 2_000, status: 'exhausted', reason: 'max_turns reached' });
      expect(snapshot.turn).toBe(2_001);

      const runs: number[] = [];
      let runId: string | undefined = started.firstExecutionRunId;
      while (runId) {
        const history = await env.client.workflow.getHandle(workflowId, runId).fetchHistory();
        runs.push(history.events!.length);
        runId = history.events!.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
      }
      expect(runs.length).toBeGreaterThanOrEqual(3);
      for (const events of runs) expect(events).toBeLessThan(historyWarningThreshold);
    });
  }, 600_000);
});
