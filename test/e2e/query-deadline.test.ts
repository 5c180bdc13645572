import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArborClient, ArborClientError, UnansweredQueryError } from '../../src/client.js';
import { loadConnectionSettings } from '../../src/client/connection.js';
import { devServerWorkers } from '../support/dev-server-workers.js';
import { FreezableProxy } from '../support/freezable-proxy.js';

describe('queries that get no answer', () => {
  const servers = devServerWorkers('sk-query-deadline-test');
  const { fake } = servers;
  let proxy: FreezableProxy;
  let throughProxy: ArborClient;

  beforeAll(async () => {
    proxy = new FreezableProxy(servers.settings.address);
    const address = await proxy.start();
    throughProxy = await ArborClient.fromSettings(
      loadConnectionSettings(
        { TEMPORAL_CONFIG_FILE: '/nonexistent/arbor-test.toml' },
        { address, namespace: 'default', taskQueue: servers.settings.taskQueue },
      ),
      { queryTimeoutMs: 1_500 },
    );
  });

  afterAll(async () => {
    proxy.thaw();
    await throughProxy.close();
    await proxy.stop();
  });

  it('fail after the query timeout with a message that says so when the answer is lost on the way, and waitUntilIdle goes on once answers come back', async () => {
    fake.reply({ content: 'Ready.' });
    const started = await servers.client.startSession({ instruction: 'Say that you are ready.' });
    await started.waitUntilIdle({ timeoutMs: 30_000 });
    const session = throughProxy.session(started.id);
    expect((await session.snapshot()).status).toBe('idle');

    proxy.freeze();
    const asked = Date.now();
    const lost = await session.snapshot().catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(UnansweredQueryError);
    expect((lost as Error).message).toContain(`No answer from ${started.id} within 1.5 s`);
    expect(Date.now() - asked).toBeLessThan(15_000);
    await expect(session.transcript()).rejects.toThrow(UnansweredQueryError);

    const gaveUp = await session.waitUntilIdle({ timeoutMs: 2_000, pollIntervalMs: 100 }).catch((error: unknown) => error);
    expect(gaveUp).toBeInstanceOf(ArborClientError);
    expect((gaveUp as Error).message).toMatch(/is still unanswered \(No answer from .* within 1\.5 s/);

    const waiting = session.waitUntilIdle({ timeoutMs: 30_000, pollIntervalMs: 100 });
    setTimeout(() => proxy.thaw(), 2_500);
    const snapshot = await waiting;
    expect(snapshot.status).toBe('idle');
    expect(snapshot.last_message?.content).toBe('Ready.');
    expect((await session.transcript()).map((entry) => entry.content)).toEqual(['Say that you are ready.', 'Ready.']);
  }, 90_000);

  it('let a reader of events go on after its connection silently dies during the history long poll', async () => {
    fake.reply({ content: 'First.' }, { content: 'Second.' });
    const started = await servers.client.startSession({ instruction: 'Say first.' });
    const first = await started.waitUntilIdle({ timeoutMs: 30_000 });
    const stop = new AbortController();
    const events = throughProxy.session(started.id).events({ after: first.last_event_seq, signal: stop.signal });
    try {
      // The reader finds nothing new and waits on the server's long poll; then its connection goes silent, as one a
      // router forgot would: no error, no close, no answer. gRPC keepalive notices; the call is retried on a new one.
      const firstNew = events.next();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      proxy.silenceOpenConnections();
      const connectionsBefore = proxy.accepted;
      const sent = Date.now();
      await started.send('Say second.');
      const seen: string[] = [];
      for (let next = await firstNew; !next.done; next = await events.next()) {
        const event = next.value;
        if (event.type === 'message') seen.push(`${event.role}: ${event.content}`);
        if (event.type === 'message' && event.role === 'assistant') break;
      }
      expect(seen).toEqual(['user: Say second.', 'assistant: Second.']);
      // What was read came over a new connection: the silent one never answered.
      expect(proxy.accepted).toBeGreaterThan(connectionsBefore);
      // Keepalive pings every 30 s and gives up 15 s later: well within this bound, which only says "not for ever".
      expect(Date.now() - sent).toBeLessThan(90_000);
    } finally {
      stop.abort();
      await events.return(undefined);
    }
  }, 120_000);

  it("fail after the query timeout, not the server's 30 seconds, for a session no worker serves", async () => {
    const noWorker = new ArborClient(servers.client.temporal, `arbor-test-no-worker-${Date.now()}`, { queryTimeoutMs: 1_000 });
    const session = await noWorker.startSession({ instruction: 'Nobody will run this.' });
    const asked = Date.now();
    const error = await session.snapshot().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnansweredQueryError);
    expect((error as Error).message).toMatch(/within 1 s: no worker answered the query.*Is an Arbor worker running/);
    expect(Date.now() - asked).toBeLessThan(15_000);
    await servers.client.temporal.workflow.getHandle(session.id).terminate('test over');
  }, 60_000);

  it('rejects a query timeout that is not a positive number', async () => {
    expect(() => new ArborClient(servers.client.temporal, 'any', { queryTimeoutMs: 0 })).toThrow(
      /queryTimeoutMs must be a positive number of milliseconds, not 0/,
    );
    await expect(ArborClient.fromSettings(servers.settings, { queryTimeoutMs: Number.NaN })).rejects.toThrow(/not NaN/);
  });
});
