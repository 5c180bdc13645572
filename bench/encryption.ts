/**
 * Issue 29: the latency of one turn (one user message, one model call, no tools) with payload encryption on
 * (AES-256-GCM, ARBOR_ENCRYPTION_KEYS) against the same turn with it off, in the same run on the same server.
 *   npx tsx bench/encryption.ts [turns] [--sqlite]
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import { SessionHandle } from '../src/client/session-handle.js';
import { dataConverterOption } from '../src/codec/data-converter.js';
import { parseEncryptionKeys } from '../src/codec/encryption-keys.js';
import { sessionWorkflowType } from '../src/shared/session.js';
import {
  benchArgs,
  createArborBenchWorker,
  loadAverage,
  quietRuntime,
  resultName,
  startDevServer,
  startFakeModel,
  waitFor,
  writeResults,
} from './harness.js';
import { percentiles } from './stats.js';

quietRuntime();
const args = benchArgs();
const turns = args.size ?? 60;
const loadAtStart = loadAverage();
const warmup = 5;

const model = await startFakeModel();
const server = await startDevServer(args.server);
const { env } = server;
const codec = dataConverterOption(parseEncryptionKeys(`bench:${randomBytes(32).toString('base64')}`));
const encryptedClient = new Client({ connection: env.connection, namespace: env.namespace ?? 'default', ...codec });
const plainWorker = await createArborBenchWorker(env, model, 'bench-plain');
const encryptedWorker = await createArborBenchWorker(env, model, 'bench-encrypted', {
  worker: codec,
  activities: { client: encryptedClient },
});

const figures = await plainWorker.runUntil(() => encryptedWorker.runUntil(measure));
async function measure() {
  const start = async (client: Client, taskQueue: string) => {
    const id = `${taskQueue}-${Date.now()}`;
    await client.workflow.start(sessionWorkflowType, { taskQueue, workflowId: id, args: [{ title: 'bench' }] });
    return new SessionHandle(id, client);
  };
  const plain = await start(env.client, 'bench-plain');
  const encrypted = await start(encryptedClient, 'bench-encrypted');
  const turn = async (session: SessionHandle, i: number) => {
    const begin = performance.now();
    await session.send(`turn ${i} ${'x'.repeat(200)}`);
    await waitFor(async () => {
      const snapshot = await session.snapshot();
      return snapshot.turn === i + 1 && snapshot.status === 'idle';
    });
    return performance.now() - begin;
  };
  // Turns alternate, encrypted then plain, so that the shared machine's load hits both alike.
  const encryptedTimes: number[] = [];
  const plainTimes: number[] = [];
  for (let i = 0; i < turns + warmup; i++) {
    const onTime = await turn(encrypted, i);
    const offTime = await turn(plain, i);
    if (i >= warmup) {
      encryptedTimes.push(onTime);
      plainTimes.push(offTime);
    }
  }
  await plain.stop();
  await encrypted.stop();
  return {
    turn_ms: { encryption_on: percentiles(encryptedTimes), encryption_off: percentiles(plainTimes) },
    ratio_p50: Math.round((percentiles(encryptedTimes).p50 / percentiles(plainTimes).p50) * 100) / 100,
  };
}

await server.teardown();
await model.fake.stop();
console.table(figures.turn_ms);
console.log(`Encryption: one turn, p50 ratio of encryption on to off: ${figures.ratio_p50}x`);
await writeResults(resultName('encryption', args.server), { server: args.server, turns, load_average_at_start: loadAtStart, ...figures });
