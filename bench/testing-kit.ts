/**
 * The testing kit (issue 25): how long `createTestArbor()` takes to start, and the wall time of a test of a loop that
 * fires every hour for seven days (168 firings, each a turn with one model call), on the time-skipping server.
 *
 * Floors, in the same run, doing the same work on bare Temporal:
 * - start-up: the same time-skipping test server, and a worker of the same workflow bundle with Arbor's activities
 *   (what the kit starts, without its helpers, its model transport or its search-attribute check);
 * - the week: a bare workflow that sleeps an hour and makes a model call, 168 times, the call sending what a session's
 *   does (the system prompt, the run's conversation so far, every tool spec) through the same `openai` client and the
 *   same in-process scripted model; the test waits for the workflow's result, which skips the time.
 * Starts alternate kit / floor, `repetitions` times (default 5).
 *   npx tsx bench/testing-kit.ts [repetitions]
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import { createActivities } from '../src/activities/index.js';
import { locateBinaryPath } from '../src/temporal/binaries.js';
import { createTestArbor, inProcessFetch, ScriptedModel, text, toolCall } from '../src/testing.js';
import { workflowBundlerOptions } from '../src/worker/workflow-code.js';
import type { BareLoopInput } from './floor-workflows.js';
import { benchArgs, conversationalModelActivities, createFloorWorker, loadAverage, quietRuntime, writeResults } from './harness.js';
import { ratio, round, summary } from './stats.js';

quietRuntime();
const repetitions = benchArgs().size ?? 5;
const loadAtStart = loadAverage();
const testServerPath = await locateBinaryPath('test-server');
const silent = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };

// Bundling once, as the package's prebuilt bundle is built once at install; the first start from source pays it.
const bundleStarted = performance.now();
const folder = await mkdtemp(join(tmpdir(), 'bench-testing-kit-'));
const bundlePath = join(folder, 'workflow-bundle.js');
await writeFile(bundlePath, (await bundleWorkflowCode({ ...workflowBundlerOptions(), logger: silent })).code);
const bundleSeconds = (performance.now() - bundleStarted) / 1000;

const loopModel = () =>
  new ScriptedModel((request) =>
    request.number === 1
      ? toolCall('createLoop', { prompt: 'Check the build', interval_seconds: 3_600, max_turns: 168 })
      : text(request.lastUserMessage.startsWith('[Loop') ? 'Build is green.' : 'Loop created.'),
  );

async function kitStart(): Promise<number> {
  const started = performance.now();
  const arbor = await createTestArbor({ model: loopModel(), workflowBundlePath: bundlePath, testServerPath });
  const ms = performance.now() - started;
  await arbor.teardown();
  return ms;
}

async function floorStart(): Promise<number> {
  const started = performance.now();
  const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: testServerPath } } });
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: `floor-${Date.now()}`,
    workflowBundle: { codePath: bundlePath },
    activities: createActivities({
      client: env.client,
      model: { defaultModel: 'scripted', requestTimeoutMs: 30_000, fetch: inProcessFetch(loopModel()) },
      searchAttributes: false,
      search: { engines: [] },
    }),
  });
  const running = worker.run();
  const ms = performance.now() - started;
  worker.shutdown();
  await running;
  await env.teardown();
  return ms;
}

async function kitWeek(): Promise<{ ms: number; firings: number }> {
  const model = loopModel();
  const arbor = await createTestArbor({
    model,
    workflowBundlePath: bundlePath,
    testServerPath,
    loopLimits: { max_age_seconds: 8 * 86_400 },
  });
  try {
    const started = performance.now();
    const session = await arbor.startSession({ instruction: 'Check the build every hour for a week' });
    await arbor.waitUntilIdle(session);
    await arbor.fastForward(session, '7 days');
    const snapshot = await arbor.waitUntilIdle(session);
    const ms = performance.now() - started;
    return { ms, firings: snapshot.loops[0]?.firings ?? 0 };
  } finally {
    await arbor.teardown();
  }
}

async function floorWeek(): Promise<{ ms: number; firings: number }> {
  const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: testServerPath } } });
  const model = new ScriptedModel(() => text('Build is green.'));
  const openai = new OpenAI({
    apiKey: 'sk-bench',
    baseURL: 'http://scripted-model.invalid/v1',
    maxRetries: 0,
    fetch: inProcessFetch(model),
  });
  const taskQueue = `floor-week-${Date.now()}`;
  const worker = await createFloorWorker(env, taskQueue, conversationalModelActivities({ openai }));
  try {
    return await worker.runUntil(async () => {
      const started = performance.now();
      const input: BareLoopInput = { firings: 168, intervalSeconds: 3_600, historyLimit: 5_000 };
      const handle = await env.client.workflow.start('bareLoopWorkflow', {
        taskQueue,
        workflowId: `floor-week-${Date.now()}`,
        args: [input],
      });
      const firings = (await handle.result()) as number;
      return { ms: performance.now() - started, firings };
    });
  } finally {
    await env.teardown();
  }
}

const starts = { kit: [] as number[], floor: [] as number[] };
const weeks = { kit: [] as number[], floor: [] as number[], kitFirings: [] as number[], floorFirings: [] as number[] };
for (let index = 0; index < repetitions; index++) {
  starts.kit.push(await kitStart());
  starts.floor.push(await floorStart());
  const kit = await kitWeek();
  const floor = await floorWeek();
  weeks.kit.push(kit.ms);
  weeks.kitFirings.push(kit.firings);
  weeks.floor.push(floor.ms);
  weeks.floorFirings.push(floor.firings);
  console.log(
    `repetition ${index + 1}: start ${round(starts.kit.at(-1)!)} / ${round(starts.floor.at(-1)!)} ms, week ${round(kit.ms)} / ${round(floor.ms)} ms`,
  );
}
await rm(folder, { recursive: true, force: true });

const startKit = summary(starts.kit);
const startFloor = summary(starts.floor);
const weekKit = summary(weeks.kit);
const weekFloor = summary(weeks.floor);
console.table({
  'start-up, kit (ms)': { p50: round(startKit.p50), p95: round(startKit.p95), min: round(startKit.min), max: round(startKit.max) },
  'start-up, floor (ms)': {
    p50: round(startFloor.p50),
    p95: round(startFloor.p95),
    min: round(startFloor.min),
    max: round(startFloor.max),
  },
  'week of 168 firings, kit (ms)': { p50: round(weekKit.p50), p95: round(weekKit.p95), min: round(weekKit.min), max: round(weekKit.max) },
  'week of 168 firings, floor (ms)': {
    p50: round(weekFloor.p50),
    p95: round(weekFloor.p95),
    min: round(weekFloor.min),
    max: round(weekFloor.max),
  },
});
console.log(
  `start-up ${round(startKit.p50)} ms at p50 (${ratio(startKit.p50, startFloor.p50)}x the floor's ${round(startFloor.p50)} ms); ` +
    `a 7-day, 168-firing loop test ${round(weekKit.p50 / 1000, 1)} s at p50 (${ratio(weekKit.p50, weekFloor.p50)}x the floor's ` +
    `${round(weekFloor.p50 / 1000, 1)} s); firings ${JSON.stringify(weeks.kitFirings)} / ${JSON.stringify(weeks.floorFirings)}; ` +
    `bundling the workflow code once ${round(bundleSeconds, 1)} s`,
);
const file = await writeResults('testing-kit', {
  benchmark: 'testing kit: start-up and a 7-day loop test (time-skipping server)',
  repetitions,
  load_average_at_start: loadAtStart,
  bundle_seconds: round(bundleSeconds, 1),
  start_ms: { kit: starts.kit.map((ms) => round(ms)), floor: starts.floor.map((ms) => round(ms)) },
  week_ms: { kit: weeks.kit.map((ms) => round(ms)), floor: weeks.floor.map((ms) => round(ms)) },
  firings: { kit: weeks.kitFirings, floor: weeks.floorFirings },
});
console.log(`written ${file}`);
