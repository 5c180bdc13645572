import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { ArborClient, type SessionEvent } from '../../src/client.js';
import { defineHostTool, defineRemoteTool } from '../../src/tools.js';
import { createArborWorker, type ArborWorker } from '../../src/worker.js';
import { devServerSettings } from '../support/connection.js';
import { FakeOpenAI } from '../support/fake-openai.js';
import { call, ScriptedModel, toolResults } from '../support/scripted-model.js';
import { waitUntil } from '../support/wait.js';

/** What a slow tool's handler saw: when it started, and when its abort signal fired. */
interface SlowCall {
  startedAt?: number;
  abortedAt?: number;
  finished: boolean;
}

/** A host tool (it heartbeats, so an interrupt reaches its handler's signal) that takes minutes unless aborted. */
function slowHostTool(name: string, seen: SlowCall) {
  return defineHostTool({
    name,
    description: 'Surveys the warehouse; takes minutes.',
    input: z.object({ aisle: z.string() }),
    run: (_args, context) =>
      new Promise<string>((resolve) => {
        seen.startedAt = Date.now();
        const done = setTimeout(() => ((seen.finished = true), resolve('surveyed')), 120_000);
        context.signal.addEventListener('abort', () => {
          seen.abortedAt = Date.now();
          clearTimeout(done);
          resolve('aborted');
        });
      }),
  });
}

const survey: SlowCall = { finished: false };
const slowSurvey = slowHostTool('slow_survey', survey);
const audit: SlowCall = { finished: false };
const slowAudit = slowHostTool('slow_audit', audit);

/** A remote tool without a heartbeat timeout, so it cannot be cancelled: its worker counts for about 2 s. */
const stockQueue = `stock-${randomUUID()}`;
const stockCount = defineRemoteTool({
  name: 'stock_count',
  description: 'Counts the boxes in an aisle; takes a few seconds.',
  parameters: { type: 'object', properties: { aisle: { type: 'string' } }, required: ['aisle'] },
  taskQueue: stockQueue,
});
const count: { startedAt?: number; finishedAt?: number } = {};

/** Another such tool, which answers only once the test opens its gate. */
const gatedCount = defineRemoteTool({
  name: 'gated_count',
  description: 'Counts the boxes in an aisle once let through.',
  parameters: { type: 'object', properties: { aisle: { type: 'string' } }, required: ['aisle'] },
  taskQueue: stockQueue,
});
const gate: { started: boolean; finished: boolean; open?: () => void } = { started: false, finished: false };

/** A loopback page that never answers: when each request came, and when its connection was closed. */
const page: { requestedAt?: number; closedAt?: number } = {};
const slowPage: Server = createServer((request) => {
  page.requestedAt = Date.now();
  request.socket.on('close', () => (page.closedAt = Date.now()));
});

describe('an interrupt while a tool round runs (dev server, in-process worker with a host tool, fake model)', () => {
  const fake = new FakeOpenAI();
  const model = new ScriptedModel(fake);
  let worker: ArborWorker;
  let running: Promise<void>;
  let client: ArborClient;
  let stockConnection: NativeConnection;
  let stockWorker: Worker;
  let stockRunning: Promise<void>;

  /** The patch markers a session's history holds, each as its details' text (which names the patch). */
  async function patchMarkers(sessionId: string): Promise<string[]> {
    const events = (await client.temporal.workflow.getHandle(sessionId).fetchHistory()).events ?? [];
    return events.flatMap((event) => {
      const marker = event.markerRecordedEventAttributes;
      if (marker?.markerName !== 'core_patch') return [];
      const payloads = Object.values(marker.details ?? {}).flatMap((details) => details.payloads ?? []);
      return [payloads.map((payload) => Buffer.from(payload.data ?? new Uint8Array()).toString('utf8')).join(' ')];
    });
  }

  beforeAll(async () => {
    await fake.start();
    await new Promise<void>((resolve) => slowPage.listen(0, '127.0.0.1', resolve));
    const settings = devServerSettings();
    const modelSettings = { apiKey: 'sk-interrupt-tool', baseURL: fake.baseURL, defaultModel: 'fake-model', requestTimeoutMs: 10_000 };
    // The worker reads the allow list as it is made: webFetch may reach the loopback page.
    process.env['ARBOR_FETCH_ALLOW'] = '127.0.0.1/32';
    try {
      worker = await createArborWorker({
        connection: settings,
        model: modelSettings,
        tools: [slowSurvey, slowAudit, stockCount, gatedCount],
        webFetch: true,
        workflowBundlePath: inject('workflowBundlePath'),
      });
    } finally {
      delete process.env['ARBOR_FETCH_ALLOW'];
    }
    running = worker.run();
    // A worker knowing nothing of Arbor serves the remote tool, and never heartbeats.
    stockConnection = await NativeConnection.connect(settings.connectionOptions);
    stockWorker = await Worker.create({
      connection: stockConnection,
      namespace: settings.namespace,
      taskQueue: stockQueue,
      activities: {
        'tool:stock_count': async () => {
          count.startedAt = Date.now();
          await new Promise((resolve) => setTimeout(resolve, 2_000));
          count.finishedAt = Date.now();
          return '412 boxes in aisle 9';
        },
        'tool:gated_count': async () => {
          gate.started = true;
          await new Promise<void>((resolve) => (gate.open = resolve));
          gate.finished = true;
          return '7 boxes';
        },
      },
    });
    stockRunning = stockWorker.run();
    client = await ArborClient.fromSettings(settings);
  });

  afterAll(async () => {
    gate.open?.();
    await client?.close();
    worker?.shutdown();
    stockWorker?.shutdown();
    await running;
    await stockRunning;
    await stockConnection?.close();
    await fake.stop();
    slowPage.closeAllConnections();
    await new Promise((resolve) => slowPage.close(resolve));
  });

  it("cancels a running host tool's activity (its handler's signal fires), keeps the round's finished todoWrite result, and starts the new turn with the message", async () => {
    const instruction = 'Survey aisle 7 and note it in the todo list.';
    model.script(
      instruction,
      {
        toolCalls: [
          { name: 'todoWrite', arguments: JSON.stringify({ todos: [{ content: 'survey aisle 7', status: 'in_progress' }] }) },
          { name: 'slow_survey', arguments: JSON.stringify({ aisle: '7' }) },
        ],
      },
      { content: 'Skipped the survey, as asked.' },
    );
    const session = await client.startSession({ instruction });
    await waitUntil(() => survey.startedAt !== undefined, 30_000);

    const messageId = await session.send('Never mind the survey.', { mode: 'interrupt' });
    // The handler learns of it from the heartbeat's answer: within a second or two of the interrupt.
    await waitUntil(() => survey.abortedAt !== undefined, 20_000);
    const snapshot = await session.waitUntilIdle({ messageId, timeoutMs: 60_000 });
    expect(snapshot.turn).toBe(2);
    expect(snapshot.last_message?.content).toBe('Skipped the survey, as asked.');
    expect(survey.finished).toBe(false);

    const next = fake.requestsFor(instruction)[1]!;
    const results = toolResults(next);
    expect(results).toHaveLength(2);
    expect(results[0]).not.toMatch(/^Interrupted: /);
    expect(results[1]).toMatch(/^Interrupted: /);
    expect(next.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'Never mind the survey.' });

    const events: SessionEvent[] = [];
    for await (const event of session.events({ follow: false })) events.push(event);
    expect(events.find((event) => event.type === 'turn_interrupted')).toMatchObject({
      turn: 1,
      message_id: messageId,
      model_call_cancelled: false,
      tool_calls_cancelled: ['slow_survey'],
    });
    const transcript = await session.transcript();
    expect(transcript.find((entry) => entry.role === 'notice')?.content).toBe(
      'Turn 1 was interrupted by a new message; cancelled the slow_survey call.',
    );
    expect(snapshot.todos).toEqual([expect.objectContaining({ content: 'survey aisle 7', status: 'in_progress' })]);
    // Only an interrupt that meets a call it waits for asks the change: this session records no marker.
    expect(await patchMarkers(session.id)).toEqual([]);
  });

  it("cancels a webFetch under way on an interrupt: the page's server sees the connection closed", async () => {
    const instruction = 'Read the slow page.';
    const url = `http://127.0.0.1:${(slowPage.address() as AddressInfo).port}/report`;
    model.script(
      instruction,
      { toolCalls: [{ name: 'webFetch', arguments: JSON.stringify({ url, prompt: 'Summarise it.' }) }] },
      { content: 'Left the page.' },
    );
    const session = await client.startSession({ instruction });
    await waitUntil(() => page.requestedAt !== undefined, 30_000);

    const messageId = await session.send('Forget the page.', { mode: 'interrupt' });
    await waitUntil(() => page.closedAt !== undefined, 20_000);
    const snapshot = await session.waitUntilIdle({ messageId, timeoutMs: 60_000 });
    expect(snapshot.last_message?.content).toBe('Left the page.');
    expect(toolResults(fake.requestsFor(instruction)[1]!)).toEqual([expect.stringMatching(/^Interrupted: /)]);
    const transcript = await session.transcript();
    expect(transcript.find((entry) => entry.role === 'notice')?.content).toBe(
      'Turn 1 was interrupted by a new message; cancelled the webFetch call.',
    );
  });

  it("waits for a call that cannot be cancelled and keeps its result for the new turn, while the round's heartbeating call is cancelled", async () => {
    const instruction = 'Count aisle 9 and audit it.';
    model.script(
      instruction,
      {
        toolCalls: [
          { name: 'slow_audit', arguments: JSON.stringify({ aisle: '9' }) },
          { name: 'stock_count', arguments: JSON.stringify({ aisle: '9' }) },
        ],
      },
      { content: 'Aisle 9 has 412 boxes; the audit was skipped.' },
    );
    const session = await client.startSession({ instruction });
    await waitUntil(() => count.startedAt !== undefined && audit.startedAt !== undefined, 30_000);

    const messageId = await session.send('Skip the audit.', { mode: 'interrupt' });
    await waitUntil(() => audit.abortedAt !== undefined, 20_000);
    const snapshot = await session.waitUntilIdle({ messageId, timeoutMs: 60_000 });
    expect(snapshot.turn).toBe(2);
    expect(snapshot.last_message?.content).toBe('Aisle 9 has 412 boxes; the audit was skipped.');
    expect(count.finishedAt).toBeDefined();
    expect(audit.finished).toBe(false);

    const next = fake.requestsFor(instruction)[1]!;
    const results = toolResults(next);
    expect(results).toHaveLength(2);
    expect(results[0]).toMatch(/^Interrupted: /);
    expect(results[1]).toBe('412 boxes in aisle 9');
    expect(next.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'Skip the audit.' });

    const events: SessionEvent[] = [];
    for await (const event of session.events({ follow: false })) events.push(event);
    expect(events.find((event) => event.type === 'turn_interrupted')).toMatchObject({
      tool_calls_cancelled: ['slow_audit'],
      tool_calls_waited_for: ['stock_count'],
    });
    const transcript = await session.transcript();
    expect(transcript.find((entry) => entry.role === 'tool' && entry.name === 'stock_count')?.content).toBe('412 boxes in aisle 9');
    expect(transcript.find((entry) => entry.role === 'notice')?.content).toBe(
      'Turn 1 was interrupted by a new message; cancelled the slow_audit call. ' +
        'Waited for the stock_count call to finish and kept its result (its tool cannot be cancelled).',
    );
    expect(await patchMarkers(session.id)).toEqual([expect.stringContaining('interrupt-waits-for-uncancellable-tool-calls')]);
    // The wait's commands replay as they were recorded.
    const history = await client.temporal.workflow.getHandle(session.id).fetchHistory();
    const bundle = { codePath: inject('workflowBundlePath') };
    await expect(Worker.runReplayHistory({ workflowBundle: bundle }, history, session.id)).resolves.toBeUndefined();
  });

  it('stops a session at once while its interrupt waits for a call that cannot be cancelled', async () => {
    const instruction = 'Count aisle 3 when let through.';
    model.script(instruction, call('gated_count', { aisle: '3' }), { content: 'never asked' });
    const session = await client.startSession({ instruction });
    await waitUntil(() => gate.started, 30_000);
    await session.send('Stop counting.', { mode: 'interrupt' });
    await session.stop();
    const handle = client.temporal.workflow.getHandle(session.id);
    // The gate is still closed: the session could only end here without waiting for the call.
    await handle.result().catch(() => undefined);
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    expect(gate.finished).toBe(false);
    expect(fake.requestsFor(instruction)).toHaveLength(1);
  });
});
