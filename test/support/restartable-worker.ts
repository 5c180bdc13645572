import { inject } from 'vitest';
import type { ConnectionSettings } from '../../src/client/connection.js';
import { createArborWorker, type ArborWorker } from '../../src/worker.js';

/**
 * An Arbor worker in the test process against a fake model, that a test stops and starts again (with other
 * settings, say): `start` stops the one running first; `stop` waits until it has shut down. The fake's address is read
 * at each start (it has none before it starts).
 */
export function restartableWorker(apiKey: string, fake: { readonly baseURL: string }) {
  let worker: { arbor: ArborWorker; running: Promise<void> } | undefined;
  const stop = async () => {
    worker?.arbor.shutdown();
    await worker?.running;
    worker = undefined;
  };
  const start = async (settings: ConnectionSettings) => {
    await stop();
    const arbor = await createArborWorker({
      connection: settings,
      model: { apiKey, baseURL: fake.baseURL, defaultModel: 'fake-model', requestTimeoutMs: 10_000 },
      workflowBundlePath: inject('workflowBundlePath'),
    });
    worker = { arbor, running: arbor.run() };
  };
  return { start, stop };
}
