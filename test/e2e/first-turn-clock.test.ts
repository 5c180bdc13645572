import { randomUUID } from 'node:crypto';
import type { temporal } from '@temporalio/proto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../src/activities/index.js';
import { ArborClient } from '../../src/client.js';
import { snapshotQuery } from '../../src/shared/messages.js';
import { devServerSettings } from '../support/connection.js';
import { FakeOpenAI } from '../support/fake-openai.js';
import { ScriptedModel, call } from '../support/scripted-model.js';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const workflowTaskScheduled = 5;

/**
 * Whether the first workflow task recorded the prepareSession marker and nothing after it: a query answered in that
 * task while the local activity's result was pending made the server start another one, in which the workflow took
 * the result. That second task's time is what the live run read; a replay reads the activity's completion time.
 */
function firstTaskEndsAtMarker(events: HistoryEvent[]): boolean {
  const marker = events.findIndex((event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity');
  return marker > 0 && events[marker + 1]?.eventType === workflowTaskScheduled;
}

describe('the clock of a session’s first turn (dev server, in-process workers, fake model)', () => {
  const fake = new FakeOpenAI();
  const model = new ScriptedModel(fake);
  const settings = devServerSettings();
  let client: ArborClient;
  let connection: NativeConnection;

  beforeAll(async () => {
    await fake.start();
    client = await ArborClient.fromSettings(settings);
    connection = await NativeConnection.connect(settings.connectionOptions);
  });

  afterAll(async () => {
    await connection?.close();
    await client?.close();
    await fake.stop();
  });

  const createWorker = () =>
    Worker.create({
      connection,
      namespace: settings.namespace,
      taskQueue: settings.taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: createActivities({
        client: client.temporal,
        model: { apiKey: 'sk-first-turn-clock', baseURL: fake.baseURL, defaultModel: 'fake-model', requestTimeoutMs: 10_000 },
        search: { engines: [] },
      }),
    });

  it('is the same live and on replay when a query meets the first workflow task', async () => {
    const instruction = `first turn clock ${randomUUID()}`;
    model.script(instruction, call('todoWrite', { todos: [{ content: 'Look around', status: 'in_progress' }] }), { content: 'Done.' });
    // Started with no worker polling, and queried at once: the query goes out with the session's first workflow task.
    const session = await client.startSession({ instruction });
    const handle = client.temporal.workflow.getHandle(session.id);
    const firstQuery = handle.query(snapshotQuery);

    const live = await (await createWorker()).runUntil(async () => {
      await firstQuery;
      await session.waitUntilIdle({ timeoutMs: 60_000 });
      return session.snapshot();
    });
    const events = (await handle.fetchHistory()).events ?? [];
    expect(firstTaskEndsAtMarker(events)).toBe(true);
    expect(live.turn_started_at).not.toBeNull();

    // A worker with an empty cache answers by replaying the whole history.
    const replayed = await (await createWorker()).runUntil(() => session.snapshot());
    expect(replayed.turn).toBe(1);
    expect(replayed.turn_started_at).toBe(live.turn_started_at);
    // The history replays without nondeterminism, as every later replay of it will.
    await Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, await handle.fetchHistory(), session.id);
  });
});
