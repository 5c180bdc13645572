import { Client, type WorkflowClientInterceptor } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArborClient } from '../../src/client.js';
import { sendQueriesOneAtATime } from '../../src/client/access/query-lanes.js';
import { devServerSettings } from '../support/connection.js';
import { FakeOpenAI } from '../support/fake-openai.js';
import { ScriptedModel } from '../support/scripted-model.js';
import { restartableWorker } from '../support/restartable-worker.js';

/**
 * Several queries that reach a session at once while a workflow task is in flight are answered one at once and the
 * others a second or two late (now and then never): a client told to (the console's) sends them one at a time.
 */
describe('reads of one session at once, from a client that sends queries one at a time', () => {
  const fake = new FakeOpenAI();
  const model = new ScriptedModel(fake);
  const settings = devServerSettings();
  const worker = restartableWorker('sk-query-lanes', fake);
  let plain: ArborClient;
  let counted: ArborClient;
  const inFlight = new Map<string, number>();
  let most = 0;

  beforeAll(async () => {
    await fake.start();
    plain = await ArborClient.fromSettings(settings);
    const countInFlight: WorkflowClientInterceptor = {
      query: async (input, next) => {
        const id = input.workflowExecution.workflowId;
        inFlight.set(id, (inFlight.get(id) ?? 0) + 1);
        most = Math.max(most, inFlight.get(id)!);
        try {
          return await next(input);
        } finally {
          inFlight.set(id, inFlight.get(id)! - 1);
        }
      },
    };
    const temporal = new Client({
      connection: plain.temporal.connection,
      namespace: settings.namespace,
      interceptors: { workflow: [countInFlight] },
    });
    // As the console's server makes its own.
    sendQueriesOneAtATime(temporal);
    counted = new ArborClient(temporal, settings.taskQueue);
    await worker.start(settings);
  });

  afterAll(async () => {
    await worker.stop();
    await plain?.close();
    await fake.stop();
  });

  it('are sent to it one at a time, and each is answered', async () => {
    model.script('Answer slowly.', { content: 'A slow answer.', chunks: ['A slow ', 'answer.'], chunkDelayMs: 100 });
    const session = await plain.startSession({ instruction: 'Answer slowly.' });
    await session.waitUntilIdle({ timeoutMs: 60_000 });
    await session.send('Once more, slowly.');

    const handle = counted.session(session.id);
    const [snapshots, transcript, pending] = await Promise.all([
      Promise.all([handle.snapshot(), handle.snapshot(), handle.snapshot()]),
      handle.transcript(),
      handle.pendingQuestions(),
    ]);
    expect(snapshots.map((snapshot) => snapshot.session_id)).toEqual([session.id, session.id, session.id]);
    expect(transcript.some((entry) => entry.content === 'Once more, slowly.')).toBe(true);
    expect(pending).toEqual([]);
    expect(most).toBe(1);
  });
});
