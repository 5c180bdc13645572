import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll } from 'vitest';
import { ArborClient } from '../../src/client.js';
import { devServerSettings } from './connection.js';
import { FakeOpenAI } from './fake-openai.js';
import { killHard, startWorkerProcess, workerProcessEnv } from './processes.js';
import { ScriptedModel } from './scripted-model.js';

/**
 * For a describe block on the shared dev server: its own task queue, a fake OpenAI-compatible server with a
 * ScriptedModel, an SDK client, and worker processes a test can kill for real. Everything stops after the tests.
 */
export function devServerWorkers(apiKey: string, options: { startWorker?: boolean; workerEnv?: NodeJS.ProcessEnv } = {}) {
  const fake = new FakeOpenAI();
  const model = new ScriptedModel(fake);
  const settings = devServerSettings();
  const workers: ChildProcess[] = [];
  let client: ArborClient | undefined;

  // A second try when a worker process dies before it is ready (seen once on a heavily loaded machine).
  const startWorker = async () => {
    const env = { ...workerProcessEnv(settings, fake.baseURL, apiKey), ...options.workerEnv };
    const worker = await startWorkerProcess(env).catch((error: unknown) => {
      console.warn(`[dev-server-workers] retrying a worker start: ${String(error).slice(0, 2_000)}`);
      return startWorkerProcess(env);
    });
    workers.push(worker);
    return worker;
  };

  beforeAll(async () => {
    await fake.start();
    if (options.startWorker !== false) await startWorker();
    client = await ArborClient.fromSettings(settings);
  });

  afterAll(async () => {
    await Promise.all(workers.map(killHard));
    await client?.close();
    await fake.stop();
  });

  return {
    fake,
    model,
    settings,
    /** The environment that points a CLI process at this server and task queue. */
    cliEnv: { TEMPORAL_ADDRESS: settings.address, ARBOR_TASK_QUEUE: settings.taskQueue } as NodeJS.ProcessEnv,
    get client(): ArborClient {
      if (!client) throw new Error('the client connects in beforeAll');
      return client;
    },
    startWorker,
    /** SIGKILLs the oldest worker still running and starts a new one. */
    async restartWorker(): Promise<void> {
      const oldest = workers.find((worker) => worker.exitCode === null && worker.signalCode === null);
      if (oldest) await killHard(oldest);
      await startWorker();
    },
  };
}
