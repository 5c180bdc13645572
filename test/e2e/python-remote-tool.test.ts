/**
 * The Python tools example (examples/python-tools/worker.py, the `temporalio` SDK from PyPI) serves the remote tool
 * contract on the shared dev server: an activity `tool:lookup_order` on its own task queue, one input object
 * `{ arguments, context }`, a JSON result, and a non-retryable ApplicationError for an order that does not exist;
 * first scheduled by a bare workflow (the contract alone), then by an Arbor session whose worker declares the tool with
 * defineRemoteTool and whose scripted model calls it. The venv is made in Arbor's cache on the first run (one pip install per machine) and reused after.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArborClient } from '../../src/client.js';
import { connectClient } from '../../src/client/connection.js';
import type { RemoteTool } from '../../src/tools.js';
import { createArborWorker, type ArborWorker } from '../../src/worker.js';
import { devServerSettings } from '../support/connection.js';
import { FakeOpenAI } from '../support/fake-openai.js';
import {
  ensurePythonVenv,
  importOrdersToolsModule,
  PythonNotAvailableError,
  startPythonToolsWorker,
  type PythonToolsWorker,
} from '../support/python-temporalio.js';
import type { callRemoteTool, RemoteToolCallInput } from '../support/remote-tool-workflows.js';
import { call, ScriptedModel, toolResults } from '../support/scripted-model.js';
import { quietBundlerLogger } from '../support/time-skipping.js';

const venvTimeoutMs = 15 * 60_000;
const log = (line: string) => console.log(`[python tools] ${line}`);

function toolContext(toolCallId: string) {
  return {
    session_id: 'session-1',
    root_session_id: 'session-1',
    owner: 'default',
    tool_call_id: toolCallId,
    idempotency_key: `session-1:${toolCallId}`,
  };
}

/** One Python tools worker for the file, on its own task queue. */
const toolsTaskQueue = `orders-tools-${randomUUID()}`;
let python: PythonToolsWorker | undefined;

beforeAll(async () => {
  const pythonPath = await ensurePythonVenv({ log });
  python = await startPythonToolsWorker(pythonPath, { ...devServerSettings(), taskQueue: toolsTaskQueue });
}, venvTimeoutMs);

afterAll(async () => {
  await python?.stop();
});

describe('the Python tools example serves tool:lookup_order on its own task queue', () => {
  const settings = devServerSettings();
  let connection: NativeConnection;
  let worker: Worker;
  let running: Promise<void>;
  let client: Client;

  beforeAll(async () => {
    const workflowsPath = fileURLToPath(new URL('../support/remote-tool-workflows.ts', import.meta.url));
    const workflowBundle = await bundleWorkflowCode({ workflowsPath, logger: quietBundlerLogger });
    connection = await NativeConnection.connect(settings.connectionOptions);
    worker = await Worker.create({ connection, namespace: settings.namespace, taskQueue: settings.taskQueue, workflowBundle });
    running = worker.run();
    client = await connectClient(settings);
  });

  afterAll(async () => {
    await client?.connection.close();
    if (worker) {
      worker.shutdown();
      await running;
    }
    await connection?.close();
  });

  const callTool = (workflowId: string, args: Record<string, unknown>) => {
    const input: RemoteToolCallInput = {
      name: 'lookup_order',
      taskQueue: toolsTaskQueue,
      call: { arguments: args, context: toolContext(`call_${workflowId}`) },
    };
    return client.workflow.execute<typeof callRemoteTool>('callRemoteTool', {
      workflowId,
      taskQueue: settings.taskQueue,
      args: [input],
      workflowExecutionTimeout: '2 minutes',
    });
  };

  it('returns a known order as a JSON object', async () => {
    const outcome = await callTool(`lookup-known-${randomUUID()}`, { order_id: 'A-1001' });
    expect(outcome).toEqual({ ok: true, result: { order_id: 'A-1001', status: 'shipped', carrier: 'DHL', total_eur: 59.9 } });
  });

  it('fails an unknown order id with a non-retryable error that names it, tried once', async () => {
    const workflowId = `lookup-unknown-${randomUUID()}`;
    const outcome = await callTool(workflowId, { order_id: 'Z-9999' });
    expect(outcome).toEqual({
      ok: false,
      message: 'No order Z-9999 was found; check the id with the customer.',
      type: 'OrderNotFound',
      nonRetryable: true,
    });
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    const started = history.events!.filter((event) => event.activityTaskStartedEventAttributes);
    expect(started).toHaveLength(1);
    expect(Number(started[0]!.activityTaskStartedEventAttributes!.attempt)).toBe(1);
    const scheduled = history.events!.find((event) => event.activityTaskScheduledEventAttributes)!;
    expect(scheduled.activityTaskScheduledEventAttributes!.activityType?.name).toBe('tool:lookup_order');
  });

  it('validates its own arguments: a missing order id is a non-retryable error too', async () => {
    const outcome = await callTool(`lookup-invalid-${randomUUID()}`, { order: 'A-1001' });
    expect(outcome).toEqual({
      ok: false,
      message: "order_id must be a string like 'A-1001', not None",
      type: 'InvalidArguments',
      nonRetryable: true,
    });
  });
});

describe('the Python venv of the tools example', () => {
  it('says clearly when python3 is missing', async () => {
    await expect(ensurePythonVenv({ env: { PATH: '/nonexistent-arbor-bin', HOME: process.env.HOME } })).rejects.toThrow(
      PythonNotAvailableError,
    );
    await expect(ensurePythonVenv({ env: { PATH: '/nonexistent-arbor-bin', HOME: process.env.HOME } })).rejects.toThrow(
      /python3 was not found on PATH \(\/nonexistent-arbor-bin\)/,
    );
  });
});

describe('an Arbor session calls lookup_order, declared with defineRemoteTool and served by the Python worker', () => {
  const fake = new FakeOpenAI();
  const model = new ScriptedModel(fake);
  const settings = devServerSettings();
  let lookupOrder: RemoteTool;
  let worker: ArborWorker;
  let running: Promise<void>;
  let client: ArborClient;

  beforeAll(async () => {
    await fake.start();
    // The example's own --tools module (examples/python-tools/orders-tools.js), pointed at this file's Python worker.
    lookupOrder = (await importOrdersToolsModule(toolsTaskQueue)).lookupOrder as RemoteTool;
    expect(lookupOrder).toMatchObject({ kind: 'arbor-remote-tool', name: 'lookup_order', taskQueue: toolsTaskQueue });
    worker = await createArborWorker({
      connection: settings,
      model: { apiKey: 'sk-python-tools', baseURL: fake.baseURL, defaultModel: 'fake-model', requestTimeoutMs: 10_000 },
      tools: [lookupOrder],
    });
    running = worker.run();
    client = await ArborClient.fromSettings(settings);
  });

  afterAll(async () => {
    await client?.close();
    worker?.shutdown();
    await running;
    await fake.stop();
  });

  it("shows the model the tool's JSON schema and gives it the Python worker's answer", async () => {
    const instruction = `Where is order A-1001? ${randomUUID()}`;
    model.script(instruction, call('lookup_order', { order_id: 'A-1001' }), { content: 'Order A-1001 has shipped with DHL.' });
    const session = await client.startSession({ instruction });
    const snapshot = await session.waitUntilIdle({ timeoutMs: 60_000 });
    expect(snapshot.last_message?.content).toBe('Order A-1001 has shipped with DHL.');

    const [first, second] = fake.requestsFor(instruction);
    expect(first!.body.tools?.find((tool) => tool.function.name === 'lookup_order')?.function).toEqual({
      name: 'lookup_order',
      description: lookupOrder.description,
      parameters: lookupOrder.parameters,
    });
    // JSON text of the Python worker's dict (its converter sorts the keys).
    const results = toolResults(second!);
    expect(results).toHaveLength(1);
    expect(JSON.parse(results[0]!)).toEqual({ order_id: 'A-1001', status: 'shipped', carrier: 'DHL', total_eur: 59.9 });

    const history = await client.temporal.workflow.getHandle(session.id).fetchHistory();
    const scheduled = history.events!.find(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'tool:lookup_order',
    );
    expect(scheduled?.activityTaskScheduledEventAttributes?.taskQueue?.name).toBe(toolsTaskQueue);
  });

  it('gives the model an unknown order id as a tool error with the Python message, tried once', async () => {
    const instruction = `Where is order Z-9999? ${randomUUID()}`;
    model.script(instruction, call('lookup_order', { order_id: 'Z-9999' }), { content: 'I could not find that order.' });
    const session = await client.startSession({ instruction });
    const snapshot = await session.waitUntilIdle({ timeoutMs: 60_000 });
    expect(snapshot).toMatchObject({ status: 'idle', last_error: null });
    expect(snapshot.last_message?.content).toBe('I could not find that order.');

    const [, second] = fake.requestsFor(instruction);
    expect(toolResults(second!)).toEqual(['Error: Tool lookup_order failed: No order Z-9999 was found; check the id with the customer.']);
    const transcript = await session.transcript();
    expect(transcript.find((entry) => entry.role === 'tool')).toMatchObject({ is_error: true });

    const history = await client.temporal.workflow.getHandle(session.id).fetchHistory();
    const started = history.events!.filter((event) => event.activityTaskStartedEventAttributes);
    const toolStarts = started.filter((event) => {
      const scheduledId = String(event.activityTaskStartedEventAttributes!.scheduledEventId);
      const scheduledEvent = history.events!.find((candidate) => String(candidate.eventId) === scheduledId);
      return scheduledEvent?.activityTaskScheduledEventAttributes?.activityType?.name === 'tool:lookup_order';
    });
    expect(toolStarts.map((event) => Number(event.activityTaskStartedEventAttributes!.attempt))).toEqual([1]);
  });
});
