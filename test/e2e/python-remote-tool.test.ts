/**
 * The Python tools example (examples/python-tools/worker.py, the `temporalio` SDK from PyPI) serves the remote tool
 * contract on the shared dev server: an activity `tool:lookup_order` on its own task queue, one input object
 * `{ arguments, context }`, a JSON result, and a non-retryable ApplicationError for an order that does not exist.
 * The venv is made in Arbor's cache on the first run (one pip install per machine) and reused after.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient } from '../../src/client/connection.js';
import { devServerSettings } from '../support/connection.js';
import { ensurePythonVenv, PythonNotAvailableError, startPythonToolsWorker, type PythonToolsWorker } from '../support/python-temporalio.js';
import type { callRemoteTool, RemoteToolCallInput } from '../support/remote-tool-workflows.js';
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

describe('the Python tools example serves tool:lookup_order on its own task queue', () => {
  const settings = devServerSettings();
  const toolsTaskQueue = `orders-tools-${randomUUID()}`;
  let python: PythonToolsWorker;
  let connection: NativeConnection;
  let worker: Worker;
  let running: Promise<void>;
  let client: Client;

  beforeAll(async () => {
    const pythonPath = await ensurePythonVenv({ log });
    python = await startPythonToolsWorker(pythonPath, { ...settings, taskQueue: toolsTaskQueue });
    const workflowsPath = fileURLToPath(new URL('../support/remote-tool-workflows.ts', import.meta.url));
    const workflowBundle = await bundleWorkflowCode({ workflowsPath, logger: quietBundlerLogger });
    connection = await NativeConnection.connect(settings.connectionOptions);
    worker = await Worker.create({ connection, namespace: settings.namespace, taskQueue: settings.taskQueue, workflowBundle });
    running = worker.run();
    client = await connectClient(settings);
  }, venvTimeoutMs);

  afterAll(async () => {
    await client?.connection.close();
    if (worker) {
      worker.shutdown();
      await running;
    }
    await connection?.close();
    await python?.stop();
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
