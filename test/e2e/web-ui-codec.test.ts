import { randomBytes, randomUUID } from 'node:crypto';
import { access } from 'node:fs/promises';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ArborClient } from '../../src/client.js';
import { loadConnectionSettings, type ConnectionSettings } from '../../src/client/connection.js';
import { findFreePort, startDevServer, type DevServer } from '../../src/temporal/dev-server.js';
import { createArborWorker, type ArborWorker } from '../../src/worker.js';
import { FakeOpenAI } from '../support/fake-openai.js';
import { startCli, type RunningCli } from '../support/processes.js';
import { waitUntil } from '../support/wait.js';

const chromiumPath = '/usr/bin/chromium';
const keys = `web:${randomBytes(32).toString('base64')}`;
const secret = `The ${randomUUID().slice(0, 8)} marmot sings in the attic.`;

describe('the Temporal Web UI of an encrypted session, in headless Chromium', () => {
  const fake = new FakeOpenAI();
  let server: DevServer;
  let codecPort: number;
  let settings: ConnectionSettings;
  let worker: ArborWorker;
  let running: Promise<void>;
  let browser: Browser;
  let codec: RunningCli | undefined;
  let sessionId: string;

  beforeAll(async () => {
    await access(chromiumPath);
    await fake.start();
    const uiPort = await findFreePort();
    codecPort = await findFreePort();
    // The UI is told of a codec endpoint on a port where nothing listens yet: the first look is without a codec server.
    server = await startDevServer({
      cliPath: inject('temporalCliPath'),
      port: 0,
      uiPort,
      extraArgs: ['--ui-codec-endpoint', `http://127.0.0.1:${codecPort}`],
    });
    settings = loadConnectionSettings(
      { TEMPORAL_CONFIG_FILE: '/nonexistent/arbor-test.toml', ARBOR_ENCRYPTION_KEYS: keys },
      { address: server.address, namespace: 'default', taskQueue: `web-ui-${randomUUID()}` },
    );
    worker = await createArborWorker({
      connection: settings,
      model: { apiKey: 'sk-web-ui', baseURL: fake.baseURL, defaultModel: 'fake-model', requestTimeoutMs: 10_000 },
      workflowBundlePath: inject('workflowBundlePath'),
    });
    running = worker.run();
    fake.reply({ content: 'Noted.' });
    const client = await ArborClient.fromSettings(settings);
    const session = await client.startSession({ instruction: secret, title: 'Marmot' });
    await session.waitUntilIdle({ timeoutMs: 30_000 });
    sessionId = session.id;
    await client.close();
    browser = await chromium.launch({ executablePath: chromiumPath });
  });

  afterAll(async () => {
    await browser?.close();
    await codec?.interrupt();
    worker?.shutdown();
    await running;
    await server?.stop();
    await fake.stop();
  });

  /** The text of the session's page once it shows `shown` (the ciphertext's encoding, or the decoded conversation). */
  async function pageText(shown: string): Promise<string> {
    const page = await browser.newPage();
    try {
      await page.goto(`${server.uiUrl}/namespaces/default/workflows/${sessionId}`);
      // Waiting for either text returned too early now and then: the page before the codec server had decoded it.
      await page.getByText(shown).first().waitFor({ timeout: 40_000 });
      return await page.locator('body').innerText();
    } finally {
      await page.close();
    }
  }

  it('shows ciphertext without a codec server, and the decrypted conversation through arbor codec-server', async () => {
    const without = await pageText('YmluYXJ5L2VuY3J5cHRlZA==');
    expect(without).not.toContain(secret);
    // The UI shows the payload as stored: encoding binary/encrypted (in base64) and the key id.
    expect(without).toContain('YmluYXJ5L2VuY3J5cHRlZA==');
    expect(without).toContain('Codec Server could not connect');

    codec = startCli(['codec-server', '--port', String(codecPort), '--ui-origin', new URL(server.uiUrl!).origin], {
      ARBOR_ENCRYPTION_KEYS: keys,
    });
    await waitUntil(() => codec!.stdout().includes(`http://127.0.0.1:${codecPort}`), 30_000);
    expect(await pageText(secret)).toContain(secret);
  });
});
