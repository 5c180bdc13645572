/**
 * What other clients send (issue 22, item 1): malformed session inputs and message signals sent with Temporal's own
 * CLI and hand-written JSON, and malformed messages sent as the `sendMessage` update. Each is refused with a reason,
 * as a failed workflow or an error event or a refused update, and no workflow task fails anywhere.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { ArborClientError } from '../../src/client.js';
import { SessionHandle } from '../../src/client/session-handle.js';
import { eventsQuery, messageStateQuery, sendMessageUpdate } from '../../src/shared/messages.js';
import { legacySessionWorkflowType, previousSessionWorkflowType, sessionWorkflowType } from '../../src/shared/session.js';
import { memoryStoreWorkflowType } from '../../src/shared/tools/memory.js';
import { createArborWorker } from '../../src/worker.js';
import { temporalOk } from '../support/temporal-cli.js';
import { waitUntil } from '../support/wait.js';
import { inProcessDemoWorker } from '../support/in-process-demo-worker.js';

describe('what clients other than the SDK send to a session', () => {
  const demo = inProcessDemoWorker();

  /** `temporal workflow start` with the given --input values (none: no input at all). */
  const startWithCli = async (type: string, inputs: string[]) => {
    const id = `wire-${randomUUID()}`;
    await temporalOk([
      'workflow',
      'start',
      '--type',
      type,
      '--task-queue',
      demo.settings.taskQueue,
      '--workflow-id',
      id,
      ...inputs.flatMap((input) => ['--input', input]),
    ]);
    return id;
  };

  const historyOf = async (id: string) => (await demo.arbor.temporal.workflow.getHandle(id).fetchHistory()).events ?? [];
  const taskFailures = async (id: string) => (await historyOf(id)).filter((event) => event.workflowTaskFailedEventAttributes);

  /** The failure a workflow ended with: its type and message. */
  const failureOf = async (id: string) => {
    const error = await demo.arbor.temporal.workflow
      .getHandle(id)
      .result()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const cause = (error as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    return { type: (cause as ApplicationFailure).type, message: cause!.message, nonRetryable: (cause as ApplicationFailure).nonRetryable };
  };

  const badSessionInputs: { name: string; inputs: string[]; reason: RegExp }[] = [
    { name: 'no input at all', inputs: [], reason: /expected object, received undefined/ },
    { name: 'a string', inputs: ['"Plan a picnic"'], reason: /expected object, received string/ },
    { name: 'wrong keys', inputs: ['{"text": "Plan a picnic"}'], reason: /Unrecognized key: "text"/ },
    { name: 'max_tool_rounds 0', inputs: ['{"instruction": "Plan a picnic", "max_tool_rounds": 0}'], reason: /max_tool_rounds/ },
    { name: 'an empty model name', inputs: ['{"instruction": "Plan a picnic", "model": ""}'], reason: /at model/ },
    { name: 'a blank instruction', inputs: ['{"instruction": "   "}'], reason: /instruction is blank/ },
  ];

  for (const type of [sessionWorkflowType, previousSessionWorkflowType, legacySessionWorkflowType]) {
    it(`ends an ${type} started by the Temporal CLI with a bad input at once as a failed workflow that says what was wrong and what is expected`, async () => {
      for (const { name, inputs, reason } of badSessionInputs) {
        const id = await startWithCli(type, inputs);
        const failure = await failureOf(id);
        expect(failure.type, name).toBe('InvalidSessionInput');
        expect(failure.nonRetryable, name).toBe(true);
        expect(failure.message, name).toMatch(reason);
        expect(failure.message, name).toContain("A session's input is one JSON object such as");
        expect(failure.message, name).toContain('max_tool_rounds');
        expect(await taskFailures(id), name).toEqual([]);
      }
    });
  }

  it('ends a memory store started with a bad input as a failed workflow that names the owner it needs', async () => {
    for (const inputs of [[], ['{"owner": "two words"}'], ['{"owner": "alice", "memories": []}']]) {
      const id = await startWithCli(memoryStoreWorkflowType, inputs);
      const failure = await failureOf(id);
      expect(failure.type).toBe('InvalidMemoryStoreInput');
      expect(failure.message).toContain('A memory store\'s input is {"owner": "<owner id>"}');
      expect(await taskFailures(id)).toEqual([]);
    }
  });

  it('runs a session the Temporal CLI started with a valid input under a workflow id of its own choosing', async () => {
    const id = await startWithCli(sessionWorkflowType, ['{"instruction": "Plan a picnic for four people", "title": "Picnic"}']);
    // A handle by any workflow id (the SDK's own ids are UUIDs; any Arbor session's id is a session id).
    const session = new SessionHandle(id, demo.arbor.temporal);
    const snapshot = await session.waitUntilIdle({ timeoutMs: 60_000 });
    expect(snapshot).toMatchObject({ session_id: id, title: 'Picnic', status: 'idle', turn: 1, last_error: null });
    expect(snapshot.last_message?.role).toBe('assistant');
    expect(await taskFailures(id)).toEqual([]);
    await session.stop();
  });

  it('records each malformed userMessage signal as an error event with the reason, answers refused for its id, and takes the id when sent well', async () => {
    const session = await demo.arbor.startSession({ instruction: 'Plan a picnic', title: 'Signals' });
    const first = await session.waitUntilIdle({ timeoutMs: 60_000 });
    const signal = (input: string) =>
      temporalOk(['workflow', 'signal', '--workflow-id', session.id, '--name', 'userMessage', '--input', input]);
    await signal('"just a string"');
    await signal('{"text": "Plan it for Sunday"}');
    await signal('{"id": "m-empty", "content": "   "}');

    const handle = demo.arbor.temporal.workflow.getHandle(session.id);
    const errors = async () =>
      (await handle.query(eventsQuery, { after: first.last_event_seq })).events.filter((event) => event.type === 'error');
    await waitUntil(async () => (await errors()).length === 3, 30_000);
    const [string, wrongKey, empty] = await errors();
    expect(string).toMatchObject({ type: 'error', content: expect.stringMatching(/refused.*expected object, received string/) });
    expect(string).not.toHaveProperty('message_id');
    expect(wrongKey?.content).toMatch(/expected string, received undefined.*at content/);
    expect(empty).toMatchObject({ message_id: 'm-empty', content: expect.stringContaining('message is empty') });
    for (const event of [string, wrongKey, empty]) expect(event?.content).toContain('A message is {"content": "<text');
    expect(await handle.query(messageStateQuery, 'm-empty')).toBe('refused');
    expect(await handle.query(messageStateQuery, 'never-sent')).toBe('unknown');

    // The same id, sent well, is taken in and its turn runs.
    await signal('{"id": "m-empty", "content": "Plan it for Sunday"}');
    const after = await session.waitUntilIdle({ messageId: 'm-empty', timeoutMs: 60_000 });
    expect(after.turn).toBe(2);
    expect(await session.messageState('m-empty')).toBe('handled');
    expect(await taskFailures(session.id)).toEqual([]);
    await session.stop();
  });

  it('refuses a malformed sendMessage update with the reason, leaving nothing in history, and the SDK sends through the update', async () => {
    const session = await demo.arbor.startSession({ instruction: 'Plan a picnic', title: 'Updates' });
    await session.waitUntilIdle({ timeoutMs: 60_000 });
    const handle = demo.arbor.temporal.workflow.getHandle(session.id);
    const eventsBefore = (await historyOf(session.id)).length;
    for (const [message, reason] of [
      ['just a string', /expected object, received string/],
      [{ text: 'Plan it for Sunday' }, /expected string, received undefined.*at content/],
      [{ content: '' }, /message is empty/],
      [{ id: 'x'.repeat(201), content: 'hi' }, /at id/],
    ] as const) {
      const error = await handle.executeUpdate(sendMessageUpdate, { args: [message as never] }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
      expect((error as WorkflowUpdateFailedError).cause?.message).toMatch(reason);
    }
    const refusedOnly = await historyOf(session.id);
    expect(refusedOnly.filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes)).toEqual([]);
    expect(refusedOnly.length - eventsBefore).toBeLessThan(20);

    // The SDK's send is the update: it returns once the message is queued, and the message is no signal.
    const messageId = await session.send('Plan it for Sunday');
    const history = await historyOf(session.id);
    const accepted = history.flatMap((event) => event.workflowExecutionUpdateAcceptedEventAttributes ?? []);
    expect(accepted.map((attributes) => attributes.acceptedRequest?.input?.name)).toEqual(['sendMessage']);
    expect(accepted[0]?.protocolInstanceId).toBe(messageId);
    // (The model call's own streamDeltas signals aside: they carry what the demo model writes.)
    const signals = history.flatMap((event) => event.workflowExecutionSignaledEventAttributes?.signalName ?? []);
    expect(signals.filter((name) => name !== 'streamDeltas')).toEqual([]);
    await session.waitUntilIdle({ messageId, timeoutMs: 60_000 });

    // Sent again with the same id, it is delivered once: the receipt says it was handled.
    expect(await handle.executeUpdate(sendMessageUpdate, { args: [{ id: messageId, content: 'Plan it for Sunday' }] })).toEqual({
      message_id: messageId,
      state: 'handled',
    });
    // Without an id, the session gives the message one.
    const receipt = await handle.executeUpdate(sendMessageUpdate, { args: [{ content: 'And for Monday?' }] });
    expect(receipt).toMatchObject({ message_id: expect.stringMatching(/^[0-9a-f-]{36}$/), state: 'queued' });
    await session.waitUntilIdle({ messageId: receipt.message_id, timeoutMs: 60_000 });
    expect(await taskFailures(session.id)).toEqual([]);

    await session.stop();
    const ended = await session.send('Anyone there?').catch((caught: unknown) => caught);
    expect(ended).toBeInstanceOf(ArborClientError);
    expect((ended as Error).message).toMatch(/has ended \(stopped\); it takes no more messages/);
  });

  it('sends a message as the userMessage signal to a session whose worker is from before the sendMessage update', async () => {
    const taskQueue = `${demo.settings.taskQueue}-older`;
    const older = await Worker.create({
      connection: await NativeConnection.connect(demo.settings.connectionOptions),
      namespace: demo.settings.namespace,
      taskQueue,
      workflowsPath: fileURLToPath(new URL('../support/older-workers/pre-update-session.ts', import.meta.url)),
    });
    await older.runUntil(async () => {
      const id = `older-${randomUUID()}`;
      await demo.arbor.temporal.workflow.start('preUpdateSession', { workflowId: id, taskQueue });
      const session = new SessionHandle(id, demo.arbor.temporal);
      const messageId = await session.send('Hello from a newer client');
      expect(await session.messageState(messageId)).toBe('handled');
      const history = await historyOf(id);
      expect(history.flatMap((event) => event.workflowExecutionSignaledEventAttributes?.signalName ?? [])).toEqual(['userMessage']);
      expect(await taskFailures(id)).toEqual([]);
      await demo.arbor.temporal.workflow.getHandle(id).terminate('test over');
    });
  });

  it('sends a message as the signal as well when no worker takes the update, and the session takes it once', async () => {
    const taskQueue = `${demo.settings.taskQueue}-later`;
    const id = `later-${randomUUID()}`;
    await demo.arbor.temporal.workflow.start(sessionWorkflowType, { workflowId: id, taskQueue, args: [{ instruction: 'Plan a picnic' }] });
    const session = new SessionHandle(id, demo.arbor.temporal);
    // No worker polls this queue yet: the update waits, so the message also goes as a signal, and send returns.
    const messageId = await session.send('Plan it for Sunday');
    expect((await historyOf(id)).flatMap((event) => event.workflowExecutionSignaledEventAttributes?.signalName ?? [])).toEqual([
      'userMessage',
    ]);
    const later = await createArborWorker({
      connection: { ...demo.settings, taskQueue },
      model: { defaultModel: 'demo', requestTimeoutMs: 10_000 },
      workflowBundlePath: inject('workflowBundlePath'),
    });
    const serving = later.run();
    try {
      await session.waitUntilIdle({ messageId, timeoutMs: 60_000 });
      // Nothing left queued: the update that came later found the id already taken.
      const snapshot = await session.waitUntilIdle({ timeoutMs: 60_000 });
      expect(snapshot.queued_messages).toBe(0);
      // The message once, though both the signal and the update carried it (a signal that arrives before the
      // session's first workflow task is queued before the instruction).
      const users = (await session.transcript()).filter((entry) => entry.role === 'user').map((entry) => entry.content);
      expect(users.sort()).toEqual(['Plan a picnic', 'Plan it for Sunday']);
      expect(await taskFailures(id)).toEqual([]);
      await session.stop();
    } finally {
      later.shutdown();
      await serving;
    }
  });
});
