import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SessionHandle } from '../../src/client/session-handle.js';
import { sessionWorkflowType } from '../../src/shared/session.js';
import type { arborSessionV2 } from '../../src/workflows/session-workflow.js';
import { call, ScriptedModel } from '../support/scripted-model.js';
import { withWorker } from '../support/time-skipping.js';
import { scriptedTimeSkipping } from '../support/scripted-time-skipping.js';
import { waitUntil } from '../support/wait.js';
import { waitUntilSettled } from '../support/settle.js';

/** Temporal warns about a workflow run whose history passes this many events. */
const historyWarningThreshold = 10_240;

describe('a loop that fires 2,000 times (time-skipping server)', () => {
  const scripted = scriptedTimeSkipping('long-model');
  const { fake } = scripted;

  it('counts every firing exactly across several continue-as-new runs, each under the history warning', async () => {
    const instruction = `long loop ${randomUUID()}`;
    new ScriptedModel(fake).script(instruction, call('createLoop', { prompt: 'Tick', interval_seconds: 10, max_turns: 2_000 }), {
      content: 'Created.',
    });
    const workflowId = randomUUID();
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const started = await scripted.env.client.workflow.start<typeof arborSessionV2>(sessionWorkflowType, {
        workflowId,
        taskQueue,
        args: [{ instruction }],
      });
      const session = new SessionHandle(workflowId, scripted.env.client);
      // A look that fails counts as not yet: once in CI a query to the time-skipping server never came back (the server
      // failed to send its error: "Header size exceeded max allowed size"); the handle's query deadline ends such a wait.
      const look = () => session.snapshot().catch(() => undefined);
      // No query before the sleep: one that meets a workflow task in flight can leave time skipping locked, and the
      // 2,000 firings would then come in real time (it happened in CI). The loop is made in the model's first answer.
      await waitUntil(() => fake.requestsFor(instruction).length >= 2, 30_000);
      await waitUntilSettled(scripted.env.client, workflowId);
      await scripted.env.sleep('6 hours');
      // About 90 s on an idle 2-core machine; several times that when other heavy tests share it.
      await waitUntil(async () => (await look())?.loops[0]?.status === 'exhausted', 540_000);
      const snapshot = await session.waitUntilIdle({ timeoutMs: 60_000 });
      expect(snapshot.loops[0]).toMatchObject({ firings: 2_000, status: 'exhausted', reason: 'max_turns reached' });
      expect(snapshot.turn).toBe(2_001);

      const runs: number[] = [];
      let runId: string | undefined = started.firstExecutionRunId;
      while (runId) {
        const history = await scripted.env.client.workflow.getHandle(workflowId, runId).fetchHistory();
        runs.push(history.events!.length);
        runId = history.events!.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
      }
      expect(runs.length).toBeGreaterThanOrEqual(3);
      for (const events of runs) expect(events).toBeLessThan(historyWarningThreshold);
    });
  }, 720_000);
});
