/**
 * B1 and B7 of issue 9: the latency of one turn (one model call, no tools) against the same work in bare Temporal
 * code and in process with no Temporal, and the history events and bytes each turn adds.
 *   npx tsx bench/turns.ts [turns]
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import { createActivities } from '../src/activities/index.js';
import { SessionHandle } from '../src/session-handle.js';
import { sessionWorkflowType } from '../src/shared/session.js';
import { parentSessionIdKey, rootSessionIdKey, statusKey, titleKey } from '../src/shared/search-attributes.js';
import { locateBinaryPath } from '../src/temporal/binaries.js';
import { workflowIgnoredModules, workflowsPath } from '../src/workflows-location.js';
import { FakeOpenAI } from '../test/support/fake-openai.js';
import { bareMessageSignal, bareTurnsQuery } from './floor-workflows.js';

Runtime.install({ logger: new DefaultLogger('WARN') });
const turns = Number(process.argv[2] ?? 60);
const warmup = 5;

const fake = await new FakeOpenAI().start();
fake.fallback = () => ({ content: 'ok' });
const openai = new OpenAI({ apiKey: 'sk-bench', baseURL: fake.baseURL, maxRetries: 0 });
const env = await TestWorkflowEnvironment.createLocal({
  server: { executable: { type: 'existing-path', path: await locateBinaryPath('cli') }, searchAttributes: [rootSessionIdKey, parentSessionIdKey, statusKey, titleKey] },
});

const arborWorker = await Worker.create({
  connection: env.nativeConnection,
  taskQueue: 'bench-arbor',
  workflowsPath: workflowsPath(),
  bundlerOptions: { ignoreModules: workflowIgnoredModules },
  activities: createActivities({ client: env.client, model: { apiKey: 'sk-bench', baseURL: fake.baseURL, defaultModel: 'bench', requestTimeoutMs: 10_000 }, search: { engines: [] } }),
});
const bareWorker = await Worker.create({
  connection: env.nativeConnection,
  taskQueue: 'bench-bare',
  workflowsPath: fileURLToPath(new URL('./floor-workflows.ts', import.meta.url)),
  activities: {
    async bareModelCall(text: string) {
      const reply = await openai.chat.completions.create({ model: 'bench', messages: [{ role: 'user', content: text }] });
      return reply.choices[0]?.message.content ?? '';
    },
  },
});

async function waitFor(predicate: () => Promise<boolean>): Promise<void> {
  while (!(await predicate())) await new Promise((resolve) => setTimeout(resolve, 2));
}

function percentiles(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 100) / 100;
  return { n: samples.length, p50: at(50), p95: at(95), p99: at(99) };
}

const figures = await arborWorker.runUntil(measure);
async function measure() {
  // Zero line: the same model call in process.
  const inProcess: number[] = [];
  for (let i = 0; i < turns + warmup; i++) {
    const start = performance.now();
    await openai.chat.completions.create({ model: 'bench', messages: [{ role: 'user', content: `turn ${i}` }] });
    if (i >= warmup) inProcess.push(performance.now() - start);
  }

  // Floor: bare workflow, one signal and one activity per turn.
  const bare = await env.client.workflow.start('bareTurnWorkflow', { taskQueue: 'bench-bare', workflowId: `bare-${Date.now()}` });
  const bareTimes: number[] = [];
  await bareWorker.runUntil(async () => {
    for (let i = 0; i < turns + warmup; i++) {
      const start = performance.now();
      await bare.signal(bareMessageSignal, `turn ${i}`);
      await waitFor(async () => (await bare.query(bareTurnsQuery)) === i + 1);
      if (i >= warmup) bareTimes.push(performance.now() - start);
    }
  });
  const bareHistory = await bare.fetchHistory();

  // Arbor: a root session, one user message and one model call per turn.
  const sessionId = `bench-${Date.now()}`;
  await env.client.workflow.start(sessionWorkflowType, { taskQueue: 'bench-arbor', workflowId: sessionId, args: [{ title: 'bench' }] });
  const session = new SessionHandle(sessionId, env.client);
  const arborTimes: number[] = [];
  const eventsAfter: number[] = [];
  const bytesAfter: number[] = [];
  for (let i = 0; i < turns + warmup; i++) {
    const start = performance.now();
    await session.send(`turn ${i} ${'x'.repeat(200)}`);
    await waitFor(async () => {
      const snapshot = await session.snapshot();
      return snapshot.turn === i + 1 && snapshot.status === 'idle';
    });
    if (i >= warmup) arborTimes.push(performance.now() - start);
    const description = await env.client.workflow.getHandle(sessionId).describe();
    eventsAfter.push(description.historyLength);
    bytesAfter.push(Number(description.raw.workflowExecutionInfo?.historySizeBytes ?? 0));
  }
  await bare.terminate();
  await env.client.workflow.getHandle(sessionId).terminate();
  const perTurn = (values: number[]) => (values.at(-1)! - values[warmup - 1]!) / turns;
  const firstTenBytes = (bytesAfter[warmup + 9]! - bytesAfter[warmup - 1]!) / 10;
  const lastTenBytes = (bytesAfter.at(-1)! - bytesAfter.at(-11)!) / 10;
  return {
    b1_turn_ms: { arbor: percentiles(arborTimes), bare_floor: percentiles(bareTimes), in_process: percentiles(inProcess) },
    b1_ratio_p50: Math.round((percentiles(arborTimes).p50 / percentiles(bareTimes).p50) * 100) / 100,
    b7_events_per_turn: { arbor: perTurn(eventsAfter), bare_floor: Math.round(((bareHistory.events?.length ?? 0) / (turns + warmup)) * 10) / 10 },
    b7_bytes_per_turn: { first_ten: Math.round(firstTenBytes), last_ten: Math.round(lastTenBytes) },
  };
}

await env.teardown();
await fake.stop();
console.table(figures.b1_turn_ms);
console.log(`B1 one turn, p50 ratio to the bare floor: ${figures.b1_ratio_p50}x (target at most 1.15x)`);
console.log(`B7 history events per turn: Arbor ${figures.b7_events_per_turn.arbor}, bare floor ${figures.b7_events_per_turn.bare_floor} (target at most 10)`);
console.log(`B7 history bytes per turn: first ten turns ${figures.b7_bytes_per_turn.first_ten}, last ten ${figures.b7_bytes_per_turn.last_ten} (should not grow with the conversation)`);
await mkdir(new URL('./results/', import.meta.url), { recursive: true });
await writeFile(new URL('./results/turns.json', import.meta.url), `${JSON.stringify({ date: new Date().toISOString(), turns, ...figures }, null, 2)}\n`);
