import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ArborClient } from '../../src/client.js';
import { loadConnectionSettings } from '../../src/client/connection.js';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server.js';
import { createArborWorker, type ArborWorker } from '../../src/worker.js';
import { FakeOpenAI } from '../support/fake-openai.js';
import { PositionalModel } from '../support/positional-model.js';
import { call } from '../support/scripted-model.js';
import { waitUntil } from '../support/wait.js';

describe('a dev server restarted in the middle of a session (SQLite file)', () => {
  const fake = new FakeOpenAI();
  const model = new PositionalModel(fake);
  let folder: string;
  let server: DevServer;
  let worker: ArborWorker;
  let running: Promise<void>;

  const start = (port: number) =>
    startDevServer({ cliPath: inject('temporalCliPath'), port, ui: false, dbFilename: join(folder, 'temporal.db') });

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'arbor-server-restart-'));
    await fake.start();
    server = await start(0);
  });

  afterAll(async () => {
    worker?.worker.shutdown();
    await running?.catch(() => {});
    await server?.stop();
    await fake.stop();
    await rm(folder, { recursive: true, force: true });
  });

  it('resumes the session where it was, with nothing lost or doubled, once the server is back', async () => {
    const settings = loadConnectionSettings(
      { TEMPORAL_CONFIG_FILE: '/nonexistent/arbor-test.toml' },
      { address: server.address, taskQueue: `restart-${randomUUID()}` },
    );
    worker = await createArborWorker({
      connection: settings,
      model: { apiKey: 'sk-restart', baseURL: fake.baseURL, defaultModel: 'fake-model', requestTimeoutMs: 30_000 },
    });
    running = worker.run();
    const client = await ArborClient.fromSettings(settings);
    try {
      const instruction = `Survive a server restart ${randomUUID()}.`;
      model.script(
        instruction,
        call('todoWrite', { todos: [{ content: 'Wait for the server', status: 'in_progress' }] }),
        // The server goes down and comes back while this call waits for the model.
        { content: 'Still here after the restart.', delayMs: 6_000 },
        { content: 'And answering new messages.' },
      );
      let slowCallArrived = false;
      model.onRequest = (session, position) => {
        if (session === instruction && position === 1) slowCallArrived = true;
      };
      const session = await client.startSession({ instruction });
      await waitUntil(() => slowCallArrived, 30_000);

      const port = Number(server.address.split(':').at(-1));
      await server.stop();
      server = await start(port);

      const snapshot = await session.waitUntilIdle({ timeoutMs: 120_000 });
      expect(snapshot.last_error).toBeNull();
      expect(snapshot.todos).toEqual([{ content: 'Wait for the server', status: 'in_progress' }]);
      const messageId = await session.send('Are you still there?');
      await session.waitUntilIdle({ timeoutMs: 60_000, messageId });
      const transcript = await session.transcript();
      expect(transcript.map((entry) => [entry.role, entry.role === 'tool' ? entry.name : entry.content])).toEqual([
        ['user', instruction],
        ['assistant', ''],
        ['tool', 'todoWrite'],
        ['assistant', 'Still here after the restart.'],
        ['user', 'Are you still there?'],
        ['assistant', 'And answering new messages.'],
      ]);
      const history = await client.temporal.workflow.getHandle(session.id).fetchHistory();
      expect(history.events?.some((event) => event.workflowTaskFailedEventAttributes)).toBe(false);
    } finally {
      await client.close();
    }
  });
});
