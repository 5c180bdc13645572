import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArborClient } from '../../src/client.js';
import { devServerSettings } from '../support/connection.js';
import { FakeOpenAI } from '../support/fake-openai.js';
import { killHard, startCli, startWorkerProcess, workerProcessEnv } from '../support/processes.js';
import { waitUntil } from '../support/wait.js';

describe('following a turn with the CLI', () => {
  const fake = new FakeOpenAI();
  const settings = devServerSettings();
  let worker: ChildProcess;
  let client: ArborClient;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    await fake.start();
    fake.fallback = (request) => ({ content: `echo: ${request.body.messages.at(-1)?.content}` });
    env = { TEMPORAL_ADDRESS: settings.address, ARBOR_TASK_QUEUE: settings.taskQueue };
    worker = await startWorkerProcess(workerProcessEnv(settings, fake.baseURL, 'sk-follow'));
    client = await ArborClient.fromSettings(settings);
  });

  afterAll(async () => {
    await client?.close();
    if (worker) await killHard(worker);
    await fake.stop();
  });

  it('send --wait on a session mid-turn prints that turn’s answer as well as its own', { timeout: 120_000 }, async () => {
    let release!: () => void;
    fake.reply({ content: 'the first answer', after: new Promise<void>((resolve) => (release = resolve)) });
    const session = await client.startSession({ instruction: 'Take your time.' });
    await waitUntil(() => fake.requests.length > 0);

    const sending = startCli(['send', session.id, 'And then?', '--wait'], env);
    // The message is queued behind the running turn before that turn may end.
    await waitUntil(async () => (await session.snapshot()).queued_messages > 0, 60_000);
    release();
    const code = await new Promise<number | null>((resolve) => sending.child.once('exit', resolve));

    expect(code, sending.stderr()).toBe(0);
    expect(sending.stderr()).toContain('assistant: the first answer');
    expect(sending.stdout().trim()).toBe('echo: And then?');
  });
});
