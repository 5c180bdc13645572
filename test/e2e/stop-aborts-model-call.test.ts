import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestArbor, type TestArbor } from '../../src/testing.js';
import { waitUntil } from '../support/wait.js';

/** A model endpoint that never answers, and notes when a request's connection is closed by the caller. */
function silentModelEndpoint() {
  const requests: { closedAt?: number }[] = [];
  const server = createServer((request: IncomingMessage) => {
    const entry: { closedAt?: number } = {};
    requests.push(entry);
    request.socket.once('close', () => (entry.closedAt = Date.now()));
  });
  return { server, requests };
}

describe('stopping a session during a model call', () => {
  const endpoint = silentModelEndpoint();
  let arbor: TestArbor;

  beforeAll(async () => {
    await new Promise<void>((resolve) => endpoint.server.listen(0, '127.0.0.1', resolve));
    const { port } = endpoint.server.address() as AddressInfo;
    arbor = await createTestArbor({
      server: 'dev',
      model: { apiKey: 'sk-test', baseURL: `http://127.0.0.1:${port}/v1`, defaultModel: 'silent-model', requestTimeoutMs: 600_000 },
      workflowBundlePath: inject('workflowBundlePath'),
    });
  });

  afterAll(async () => {
    await arbor?.teardown();
    endpoint.server.closeAllConnections();
    endpoint.server.close();
  });

  it('closes the connection to the provider within a few heartbeats, not at the 12 seconds a model call heartbeat allows', async () => {
    const session = await arbor.startSession({ instruction: 'Write a very long essay.' });
    await waitUntil(() => endpoint.requests.length === 1, 30_000);
    // Past the call's first heartbeat (2 seconds in), which goes out at once: from here on only throttled ones do.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const stoppedAt = Date.now();

    await session.stop();

    // The default throttle would close it about 11 seconds from now; 2-second heartbeats close it within about 2.
    await waitUntil(() => endpoint.requests[0]!.closedAt !== undefined, 8_000);
    expect(endpoint.requests[0]!.closedAt! - stoppedAt).toBeLessThan(8_000);
    expect(endpoint.requests).toHaveLength(1);
  });
});
