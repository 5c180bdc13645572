import { describe, expect, it } from 'vitest';
import { devServerWorkers } from '../support/dev-server-workers.js';
import { call, toolResults } from '../support/scripted-model.js';
import { waitUntil } from '../support/wait.js';

describe('a TaskOutput wait on the dev server when its worker dies mid-wait', () => {
  const servers = devServerWorkers('sk-task-output-restart', { startWorker: false });
  const { fake, model } = servers;

  it('goes on waiting on the new worker and returns the task once the sub-agent finishes', async () => {
    const root = `task output root ${Date.now()}`;
    const child = `${root} / child`;
    let agentId = '';
    model
      .script(
        root,
        call('Agent', { description: 'Slow job', prompt: child, run_in_background: true }),
        (request) => {
          agentId = (JSON.parse(toolResults(request)[0]!) as { agent_id: string }).agent_id;
          return call('TaskOutput', { task_id: agentId, block: true, timeout: 600_000 });
        },
        { content: 'Read the output.' },
        { content: 'Saw the notice.' },
      )
      // The child's first model call dies with the worker; its retry on the new worker finishes it.
      .script(child, { content: 'lost with the worker', delayMs: 120_000 }, { content: 'Child finished after the restart.' });

    await servers.startWorker();
    const session = await servers.client.startSession({ instruction: root, profile: 'claurst' });
    await waitUntil(() => fake.requestsFor(root).length >= 2 && fake.requestsFor(child).length >= 1, 60_000);
    // The TaskOutput call is dispatched once the model's answer is in; then the root waits on its condition.
    await waitUntil(async () => (await session.snapshot()).status === 'running' && (await session.transcript()).length >= 4, 30_000);
    await servers.restartWorker();

    await waitUntil(() => fake.requestsFor(root).length >= 3, 120_000);
    const afterWait = fake.requestsFor(root)[2]!;
    const results = toolResults(afterWait).map((result) => JSON.parse(result) as unknown);
    expect(results[1]).toEqual({
      retrieval_status: 'success',
      task: {
        task_id: agentId,
        task_type: 'agent',
        status: 'completed',
        description: 'Slow job',
        output: 'Child finished after the restart.',
        exit_code: null,
        final_message: 'Child finished after the restart.',
        error: null,
      },
    });
    const snapshot = await session.waitUntilIdle({ timeoutMs: 60_000 });
    const calls = (await session.transcript()).filter((entry) => entry.role === 'tool' && entry.name === 'TaskOutput');
    expect(calls).toHaveLength(1);
    expect(snapshot.children.map((entry) => entry.status)).toEqual(['completed']);
  }, 240_000);
});
