import { Client, type WorkflowClientInterceptor } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArborClient } from '../../src/client.js';
import { readSessionEvents } from '../../src/client/events/session-events.js';
import type { SessionEvent } from '../../src/shared/events.js';
import { userMessageSignal } from '../../src/shared/messages.js';
import { devServerSettings } from '../support/connection.js';
import { FakeOpenAI } from '../support/fake-openai.js';
import { ScriptedModel } from '../support/scripted-model.js';
import { restartableWorker } from '../support/restartable-worker.js';
import { waitUntil } from '../support/wait.js';

/**
 * A query that meets a workflow task in flight waits for it on the server, and then (on the dev server) often a second
 * or two more: a console tab saw some events that late. The event reader waits for the task's completion on its
 * history long poll instead, and queries then.
 */
describe('a session’s event reader and a workflow task under way', () => {
  const fake = new FakeOpenAI();
  const model = new ScriptedModel(fake);
  const settings = devServerSettings();
  const worker = restartableWorker('sk-event-reader', fake);
  let arbor: ArborClient;
  let counting: Client;
  const eventQueries: number[] = [];

  beforeAll(async () => {
    await fake.start();
    arbor = await ArborClient.fromSettings(settings);
    const countQueries: WorkflowClientInterceptor = {
      query: (input, next) => {
        if (input.queryType === 'events') eventQueries.push(Date.now());
        return next(input);
      },
    };
    counting = new Client({
      connection: arbor.temporal.connection,
      namespace: settings.namespace,
      interceptors: { workflow: [countQueries] },
    });
    await worker.start(settings);
  });

  afterAll(async () => {
    await worker.stop();
    await arbor?.close();
    await fake.stop();
  });

  it('sends no query while the history shows a workflow task to come, and reads the events once the task has completed', async () => {
    model.script('Answer each message.', { content: 'Noted.' });
    const session = await arbor.startSession({ instruction: 'Answer each message.' });
    await session.waitUntilIdle({ timeoutMs: 60_000 });
    const after = (await session.snapshot()).last_event_seq;

    const stop = new AbortController();
    const read: SessionEvent[] = [];
    const reading = (async () => {
      for await (const event of readSessionEvents(counting, session.id, { after, signal: stop.signal })) read.push(event);
    })();
    try {
      await waitUntil(() => eventQueries.length >= 1, 10_000);
      await worker.stop();
      const queriesBefore = eventQueries.length;

      // No worker runs the session: the message is recorded with the workflow task that will take it, and stays there.
      await arbor.temporal.workflow.getHandle(session.id).signal(userMessageSignal, { content: 'Are you there?' });
      const history = arbor.temporal.workflow.getHandle(session.id);
      await waitUntil(async () => Boolean((await history.fetchHistory()).events?.at(-1)?.workflowTaskScheduledEventAttributes), 10_000);
      // The reader's long poll has woken on that page by now; it must not ask a query the task would hold.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(eventQueries.length).toBe(queriesBefore);

      await worker.start(settings);
      await waitUntil(
        () => read.some((event) => event.type === 'message' && (event as { content?: string }).content === 'Are you there?'),
        30_000,
      );
      expect(eventQueries.length).toBeGreaterThan(queriesBefore);
    } finally {
      stop.abort();
      await reading;
    }
  });
  it('that starts while a workflow task is to come asks nothing until it has completed', async () => {
    model.script('Answer each message.', { content: 'Noted.' });
    const session = await arbor.startSession({ instruction: 'Answer each message.' });
    await session.waitUntilIdle({ timeoutMs: 60_000 });
    const after = (await session.snapshot()).last_event_seq;
    await worker.stop();
    const stop = new AbortController();
    const read: SessionEvent[] = [];
    let reading: Promise<void> | undefined;
    try {
      await arbor.temporal.workflow.getHandle(session.id).signal(userMessageSignal, { content: 'Still there?' });
      const queriesBefore = eventQueries.length;
      reading = (async () => {
        for await (const event of readSessionEvents(counting, session.id, { after, signal: stop.signal })) read.push(event);
      })();
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(eventQueries.length).toBe(queriesBefore);

      await worker.start(settings);
      await waitUntil(
        () => read.some((event) => event.type === 'message' && (event as { content?: string }).content === 'Still there?'),
        30_000,
      );
      expect(read[0]!.seq).toBe(after + 1);
    } finally {
      stop.abort();
      await reading;
    }
  });
});
