/**
 * The measured process of B6 (bench/idle-memory.ts starts it): a worker that runs `count` sessions (or bare
 * workflows) through one turn each, leaves them idle in its workflow cache, and prints one JSON line with its memory
 * before and after. Run with --expose-gc. BENCH_SNAPSHOT=<file> also writes a V8 heap snapshot at the end, to see what
 * the sessions keep (that is how zod's per-workflow copies were found).
 *   node --expose-gc --import tsx bench/idle-memory-worker.ts <address> <arbor|bare> <count> <threads|main-thread>
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../src/activities/index.js';
import { sessionWorkflowType } from '../src/shared/session.js';
import { bareMessageSignal, bareTurnsQuery } from './floor-workflows.js';
import { snapshotQuery } from '../src/shared/messages.js';
import { arborWorkflowBundle, bareModelActivities, floorWorkflowBundle, quietRuntime, startFakeModel } from './harness.js';

const [address, kind, countText, mode] = process.argv.slice(2);
const kinds = ['arbor', 'arbor-tools', 'bare'] as const;
if (!address || !kinds.includes(kind as never) || !countText || (mode !== 'threads' && mode !== 'main-thread')) {
  throw new Error('usage: idle-memory-worker.ts <address> <arbor|arbor-tools|bare> <count> <threads|main-thread>');
}
const arbor = kind !== 'bare';
const count = Number(countText);
const warmup = 50;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

quietRuntime();
// arbor-tools: the session's one turn also calls two tools (todoWrite and planWrite), so it has built their schemas.
const model = await startFakeModel((request) =>
  kind === 'arbor-tools' && request.body.messages.at(-1)?.role === 'user'
    ? {
        toolCalls: [
          { name: 'todoWrite', arguments: JSON.stringify({ todos: [{ content: 'Write the report', status: 'in_progress' }] }) },
          { name: 'planWrite', arguments: JSON.stringify({ content: '# Plan\n1. Write the report' }) },
        ],
      }
    : { content: 'ok' },
);
const connection = await Connection.connect({ address });
const client = new Client({ connection });
const nativeConnection = await NativeConnection.connect({ address });
const taskQueue = `idle-${kind}-${mode}-${Date.now()}`;
const worker = await Worker.create({
  connection: nativeConnection,
  taskQueue,
  // Every workflow stays in the worker's sticky cache.
  maxCachedWorkflows: count + warmup + 100,
  // main-thread: workflows run in this thread's V8 heap (the same reusable context as the worker thread uses), so
  // heapUsed after a full GC counts them exactly.
  debugMode: mode === 'main-thread',
  ...(arbor
    ? {
        workflowBundle: await arborWorkflowBundle(),
        activities: createActivities({ client, model: model.settings, search: { engines: [] } }),
      }
    : { workflowBundle: await floorWorkflowBundle(), activities: bareModelActivities(model) }),
});

/** Starts the workflows 50 at a time; each batch has had its turn and is idle before the next starts. */
async function startAll(first: number, howMany: number): Promise<void> {
  const ids = Array.from({ length: howMany }, (_, index) => `${taskQueue}-${first + index}`);
  for (let i = 0; i < ids.length; i += 50) {
    const batch = ids.slice(i, i + 50);
    await Promise.all(
      batch.map(async (workflowId) => {
        if (arbor) {
          await client.workflow.start(sessionWorkflowType, {
            taskQueue,
            workflowId,
            args: [{ instruction: `hello from ${workflowId}`, title: 'idle' }],
          });
        } else {
          const handle = await client.workflow.start('bareTurnWorkflow', { taskQueue, workflowId });
          await handle.signal(bareMessageSignal, `hello from ${workflowId}`);
        }
      }),
    );
    await Promise.all(batch.map(untilIdle));
  }
}

async function untilIdle(workflowId: string): Promise<void> {
  const handle = client.workflow.getHandle(workflowId);
  for (;;) {
    // A query can time out while the worker is busy with new workflows; ask again.
    const done = await (
      arbor
        ? handle.query(snapshotQuery).then((snapshot) => snapshot.turn === 1 && snapshot.status === 'idle')
        : handle.query(bareTurnsQuery).then((turns) => turns === 1)
    ).catch(() => false);
    if (done) return;
    await delay(200);
  }
}

async function memory() {
  for (let i = 0; i < 3; i++) {
    gc!();
    await delay(200);
  }
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
  return { rss, heap_used: heapUsed, external, array_buffers: arrayBuffers };
}

const result = await worker.runUntil(async () => {
  await startAll(0, warmup);
  await delay(1_000);
  const before = await memory();
  const started = performance.now();
  await startAll(warmup, count);
  const seconds = (performance.now() - started) / 1000;
  await delay(2_000);
  const after = await memory();
  const cached = worker.getStatus().numCachedWorkflows;
  if (process.env.BENCH_SNAPSHOT) (await import('node:v8')).writeHeapSnapshot(process.env.BENCH_SNAPSHOT);
  return { before, after, cached, seconds };
});
await nativeConnection.close();
await connection.close();
await model.fake.stop();

const perSession = (key: keyof typeof result.before) => Math.round((result.after[key] - result.before[key]) / count);
process.stdout.write(
  `${JSON.stringify({
    kind,
    mode,
    count,
    cached_workflows: result.cached,
    seconds_to_start: Math.round(result.seconds),
    before: result.before,
    after: result.after,
    bytes_per_session: { rss: perSession('rss'), heap_used: perSession('heap_used'), external: perSession('external') },
  })}\n`,
);
