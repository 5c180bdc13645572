import { afterAll, beforeAll, inject } from 'vitest';
import { ArborClient } from '../../src/client.js';
import type { ConnectionSettings } from '../../src/client/connection.js';
import { createArborWorker, type ArborWorker } from '../../src/worker.js';
import { devServerSettings } from './connection.js';

/**
 * For a describe block on the shared dev server: an Arbor worker in this process with the demo model, on a task
 * queue of its own, and an SDK client. Both stop after the tests.
 */
export function inProcessDemoWorker() {
  let settings: ConnectionSettings | undefined;
  let worker: ArborWorker | undefined;
  let running: Promise<void> | undefined;
  let arbor: ArborClient | undefined;

  beforeAll(async () => {
    settings = devServerSettings();
    worker = await createArborWorker({
      connection: settings,
      model: { defaultModel: 'demo', requestTimeoutMs: 10_000 },
      workflowBundlePath: inject('workflowBundlePath'),
    });
    running = worker.run();
    arbor = await ArborClient.fromSettings(settings);
  });

  afterAll(async () => {
    await arbor?.close();
    worker?.shutdown();
    await running;
  });

  return {
    get settings(): ConnectionSettings {
      if (!settings) throw new Error('the worker starts in beforeAll');
      return settings;
    },
    get arbor(): ArborClient {
      if (!arbor) throw new Error('the client connects in beforeAll');
      return arbor;
    },
  };
}
