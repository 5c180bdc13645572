import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, inject } from 'vitest';
import { createActivities } from '../../src/activities/index.js';
import { ArborClient } from '../../src/client.js';
import { parseAllowList } from '../../src/web/fetch/index.js';
import { devServerSettings } from '../support/connection.js';
import { FakeOpenAI } from '../support/fake-openai.js';
import { ScriptedModel } from '../support/scripted-model.js';
import { runHistories, type HistoryEvent } from '../support/run-histories.js';

export interface FaultWorkerOptions {
  /** Timeout of one model request (default 10 s). */
  modelTimeoutMs?: number;
  /** ARBOR_FETCH_ALLOW of the worker (default: none). */
  fetchAllow?: string;
  /** The small model webFetch's extraction uses (default: none, pages come back raw). */
  fetchModel?: string;
  /** Whether beforeAll starts a worker (default true); a test may start its own with `createWorker()`. */
  startWorker?: boolean;
  /** ARBOR_MODEL_CONTEXT_TOKENS of the worker (default: unset). */
  contextTokens?: number;
  /** False: ARBOR_SUMMARIES=off, sessions fit their conversations by leaving the oldest out only (default: summaries on). */
  summaries?: false;
}

/**
 * For a describe block: a worker in this process on its own task queue of the shared dev server (real payload and
 * history limits), with the fake OpenAI-compatible server behind a ScriptedModel, and an SDK client. Stopped after
 * the tests.
 */
export function faultWorker(apiKey: string, options: FaultWorkerOptions = {}) {
  const fake = new FakeOpenAI();
  const model = new ScriptedModel(fake);
  const settings = devServerSettings();
  let client: ArborClient | undefined;
  /** For reading histories, whose pages can pass gRPC's default 4 MB when payloads are large. */
  let historyConnection: Connection | undefined;
  let connection: NativeConnection | undefined;
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;

  beforeAll(async () => {
    await fake.start();
    client = await ArborClient.fromSettings(settings);
    historyConnection = await Connection.connect({
      address: settings.connectionOptions.address,
      channelArgs: { 'grpc.max_receive_message_length': 64 * 1024 * 1024 },
    });
    connection = await NativeConnection.connect(settings.connectionOptions);
    if (options.startWorker === false) return;
    worker = await createWorker();
    running = worker.run();
  });

  /** A worker of today's workflow code and Arbor's activities, on this block's task queue, not yet running. */
  const createWorker = () =>
    Worker.create({
      connection: connection!,
      namespace: settings.namespace,
      taskQueue: settings.taskQueue,
      // Today's workflow code, bundled once for the whole test run by the global setup.
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: createActivities({
        client: client!.temporal,
        model: {
          apiKey,
          baseURL: fake.baseURL,
          defaultModel: 'fake-model',
          requestTimeoutMs: options.modelTimeoutMs ?? 10_000,
          ...(options.fetchModel ? { fetchModel: options.fetchModel } : {}),
          ...(options.contextTokens ? { contextTokens: { default: options.contextTokens } } : {}),
          ...(options.summaries === false ? { summaries: false } : {}),
        },
        search: { engines: [] },
        fetchAllow: parseAllowList(options.fetchAllow),
        webFetch: {},
      }),
    });

  afterAll(async () => {
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await running;
    await connection?.close();
    await historyConnection?.close();
    await client?.close();
    await fake.stop();
  });

  const harness = {
    fake,
    model,
    settings,
    createWorker,
    get client(): ArborClient {
      if (!client) throw new Error('the client connects in beforeAll');
      return client;
    },
    /** The history of every run of a session (continue-as-new makes several), oldest first. */
    runHistories(sessionId: string): Promise<HistoryEvent[][]> {
      return runHistories(new Client({ connection: historyConnection!, namespace: settings.namespace }), sessionId);
    },
    /** Workflow task failures in every run of a session: zero means the workflow code never threw or timed out. */
    async workflowTaskFailures(sessionId: string): Promise<HistoryEvent[]> {
      return (await harness.runHistories(sessionId)).flat().filter((event) => event.workflowTaskFailedEventAttributes);
    },
    async workflowStatus(sessionId: string): Promise<string> {
      return (await harness.client.temporal.workflow.getHandle(sessionId).describe()).status.name;
    },
  };
  return harness;
}
