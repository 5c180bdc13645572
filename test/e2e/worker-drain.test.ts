import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArborClient } from '../../src/client.js';
import { devServerSettings } from '../support/connection.js';
import { FakeOpenAI } from '../support/fake-openai.js';
import { startCli } from '../support/processes.js';
import { waitUntil } from '../support/wait.js';

describe('an arbor worker stopped with SIGTERM mid-turn (dev server, the CLI as a process, fake model)', () => {
  const fake = new FakeOpenAI();
  const settings = devServerSettings();
  let arbor: ArborClient;

  beforeAll(async () => {
    await fake.start();
    arbor = await ArborClient.fromSettings(settings);
  });

  afterAll(async () => {
    await arbor?.close();
    await fake.stop();
  });

  it('drains: its model call in flight ends as a cancellation, without a failure warning or the client’s stack', async () => {
    fake.fallback = () => ({ content: 'too late', delayMs: 30_000 });
    const worker = startCli(['worker'], {
      TEMPORAL_ADDRESS: settings.address,
      ARBOR_TASK_QUEUE: settings.taskQueue,
      OPENAI_BASE_URL: fake.baseURL,
      OPENAI_API_KEY: 'sk-drain',
      ARBOR_MODEL: 'fake-model',
    });
    try {
      await waitUntil(async () => worker.stderr().includes('Arbor worker polling'), 120_000);
      await arbor.startSession({ instruction: 'Answer slowly.' });
      await waitUntil(async () => fake.requests.length > 0, 60_000);
      const exited = new Promise<number | null>((resolve) => worker.child.once('exit', (code) => resolve(code)));
      worker.child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(worker.stderr()).toContain('Arbor worker stopped.');
      expect(worker.stderr()).not.toMatch(/APIUserAbortError|Activity failed/);
    } finally {
      if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    }
  }, 240_000);
});
