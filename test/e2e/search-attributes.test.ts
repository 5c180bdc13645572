import { Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ArborClient } from '../../src/client.js';
import { loadConnectionSettings } from '../../src/client/connection.js';
import { arborSearchAttributes, statusKey } from '../../src/shared/search-attributes.js';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server.js';
import { ensureSearchAttributes, missingSearchAttributes } from '../../src/temporal/search-attribute-registration.js';
import { createArborWorker } from '../../src/worker.js';

describe('a worker on a server without Arbor’s search attributes', () => {
  let server: DevServer;

  beforeAll(async () => {
    server = await startDevServer({ cliPath: inject('temporalCliPath'), port: 0, ui: false, searchAttributes: [] });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('starts a session without them, though the SDK starts sessions with their identity where the namespace has them', async () => {
    const settings = loadConnectionSettings(
      { TEMPORAL_CONFIG_FILE: '/nonexistent/arbor-test.toml' },
      { address: server.address, taskQueue: 'sa-none' },
    );
    const client = await ArborClient.fromSettings(settings);
    try {
      const first = await client.startSession({ instruction: 'Start me anyway.' });
      const second = await client.startSession({ instruction: 'And me.' });
      for (const session of [first, second]) {
        const handle = client.temporal.workflow.getHandle(session.id);
        expect((await handle.describe()).typedSearchAttributes.get(statusKey)).toBeUndefined();
        await handle.terminate('no worker in this test');
      }
    } finally {
      await client.close();
    }
  });

  it('registers them when it starts, idempotently, and sessions then set them', async () => {
    const connection = await Connection.connect({ address: server.address });
    try {
      expect(await missingSearchAttributes(connection, 'default')).toHaveLength(arborSearchAttributes.length);
      const settings = loadConnectionSettings(
        { TEMPORAL_CONFIG_FILE: '/nonexistent/arbor-test.toml' },
        { address: server.address, taskQueue: 'sa-test' },
      );

      const first = await createArborWorker({ connection: settings, model: { defaultModel: 'demo', requestTimeoutMs: 1000 } });
      expect(await missingSearchAttributes(connection, 'default')).toEqual([]);
      expect(await ensureSearchAttributes(connection, 'default')).toEqual([]);

      const running = first.run();
      const client = await ArborClient.fromSettings(settings);
      try {
        const session = await client.startSession({ instruction: 'Tag me.' });
        await session.waitUntilIdle({ timeoutMs: 30_000 });
        const description = await client.temporal.workflow.getHandle(session.id).describe();
        expect(description.typedSearchAttributes.get(statusKey)).toBe('idle');
      } finally {
        await client.close();
        first.shutdown();
        await running;
      }
    } finally {
      await connection.close();
    }
  });
});
