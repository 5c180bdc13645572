import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes.js';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { findFreePort, isServerReachable, startDevServer, type DevServer } from '../../src/temporal/dev-server.js';
import { arborSearchAttributes } from '../../src/shared/search-attributes.js';
import { isProcessAlive } from '../support/processes.js';

const cliPath = inject('temporalCliPath');

let dir: string;
const started: DevServer[] = [];

async function start(options: Parameters<typeof startDevServer>[0] = {}): Promise<DevServer> {
  const server = await startDevServer({ cliPath, port: 0, ui: false, ...options });
  started.push(server);
  return server;
}

async function withClient<T>(address: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address });
  try {
    return await fn(new Client({ connection, namespace: 'default' }));
  } finally {
    await connection.close();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'arbor-dev-server-'));
});

afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.stop()));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('startDevServer', () => {
  it('registers Arbor’s search attributes with their types', async () => {
    const server = await start();

    const attributes = await withClient(server.address, (client) =>
      client.connection.operatorService.listSearchAttributes({ namespace: 'default' }),
    );

    for (const { name, type } of arborSearchAttributes) {
      const expected = encodeSearchAttributeIndexedValueType(
        ({ Keyword: 'KEYWORD', Text: 'TEXT', Int: 'INT', Double: 'DOUBLE' } as const)[type],
      );
      expect(attributes.customAttributes[name], name).toBe(expected);
    }
  });

  it('keeps workflows in the SQLite file across a stop and a restart', async () => {
    const dbFilename = join(dir, 'nested', 'folder', 'temporal.db');
    const workflowId = `survives-restart-${Date.now()}`;

    const first = await start({ dbFilename });
    await withClient(first.address, (client) => client.workflow.start('nonexistentWorkflow', { taskQueue: 'nobody', workflowId }));
    await first.stop();

    const second = await start({ dbFilename });
    const description = await withClient(second.address, (client) => client.workflow.getHandle(workflowId).describe());

    expect(description.status.name).toBe('RUNNING');
    expect(description.type).toBe('nonexistentWorkflow');
  });

  it('forgets workflows on restart when no SQLite file is given', async () => {
    const workflowId = `in-memory-${Date.now()}`;
    const first = await start();
    await withClient(first.address, (client) => client.workflow.start('nonexistentWorkflow', { taskQueue: 'nobody', workflowId }));
    await first.stop();

    const second = await start();
    const described = withClient(second.address, (client) => client.workflow.getHandle(workflowId).describe());

    await expect(described).rejects.toThrow(/not found/i);
  });

  it('stop() ends the server process and frees its port', async () => {
    const server = await start();
    const pid = server.process.pid!;
    expect(isProcessAlive(pid)).toBe(true);

    await server.stop();

    expect(isProcessAlive(pid)).toBe(false);
    expect(server.process.exitCode !== null || server.process.signalCode !== null).toBe(true);
    expect(await isServerReachable(server.address, 500)).toBe(false);
    await server.stop(); // a second stop is harmless
  });

  it('serves the Web UI on the requested port unless headless', async () => {
    const uiPort = await findFreePort();
    const server = await start({ ui: true, uiPort });

    expect(server.uiUrl).toBe(`http://127.0.0.1:${uiPort}`);
    expect(await isServerReachable(`127.0.0.1:${uiPort}`, 2000)).toBe(true);
  });

  it('refuses to start on a port where something already listens', async () => {
    const [, port] = inject('temporalAddress').split(':');

    await expect(startDevServer({ cliPath, port: Number(port), ui: false })).rejects.toThrow(/already listening/);
  });

  it('fails with the server’s own output when the server exits during start-up', async () => {
    const attempt = startDevServer({ cliPath, port: 0, ui: false, extraArgs: ['--no-such-flag'] });

    await expect(attempt).rejects.toThrow(/exited early[\s\S]*no-such-flag/);
  });
});

describe('isServerReachable', () => {
  it('is true for the shared test server and false for a closed port', async () => {
    const closed = await findFreePort();

    expect(await isServerReachable(inject('temporalAddress'), 2000)).toBe(true);
    expect(await isServerReachable(`127.0.0.1:${closed}`, 500)).toBe(false);
  });
});
