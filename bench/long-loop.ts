/**
 * B8 of issue 9: a loop firing 10,000 times. A session's scripted model creates a loop (every 10 seconds, 10,000
 * firings); each firing is a turn with one model call. On the time-skipping test server the durable timers pass at
 * once, so what is measured is how fast the session works through its firings: firings per wall-clock second over the
 * first thousand and over the last thousand (target: the last within 10% of the first), and the history events of
 * every continue-as-new run (target: each under Temporal's 10,240-event warning). The floor: a bare workflow that
 * sleeps for the interval and makes the model call, continuing as new at the same history length, as many times.
 * Each runs on a fresh test server, which keeps every history in memory and slows as they accumulate: the floor's own
 * last thousand over its first shows how much of a slowdown is the server's.
 *   npx tsx bench/long-loop.ts [firings, default 10000] [floor firings, default as many]
 */
import type { Client } from '@temporalio/client';
import { SessionHandle } from '../src/client/session-handle.js';
import { sessionWorkflowType } from '../src/shared/session.js';
import { bareFiringsQuery, type BareLoopInput } from './floor-workflows.js';
import {
  bareModelActivities,
  benchArgs,
  createArborBenchWorker,
  createFloorWorker,
  firstUserText,
  lastMessage,
  loadAverage,
  quietRuntime,
  runHistories,
  startFakeModel,
  startTimeSkippingServer,
  waitFor,
  writeResults,
} from './harness.js';
import { ratio, round, verdict } from './stats.js';

quietRuntime();
const args = benchArgs();
const firings = args.size ?? 10_000;
const block = Math.min(1_000, Math.max(1, Math.floor(firings / 10)));
const intervalSeconds = 10;
// Time skips ahead this many intervals at a time; the firing count is read after each step.
const step = Math.max(1, Math.min(50, Math.floor(block / 4)));
const historyWarning = 10_240;
const historyLimit = 5_000;
// The floor fires as often as Arbor: the test server slows as it accumulates histories, and the floor shows by how much.
const floorFirings = args.sizes[1] ?? firings;
const loadAtStart = loadAverage();

const model = await startFakeModel((request) => {
  const loop = /^loop (\d+) /.exec(firstUserText(request));
  const last = lastMessage(request);
  if (loop && last?.role === 'user' && last.content === firstUserText(request)) {
    return {
      toolCalls: [
        {
          name: 'createLoop',
          arguments: JSON.stringify({ prompt: 'Tick', interval_seconds: intervalSeconds, max_turns: Number(loop[1]) }),
        },
      ],
    };
  }
  if (loop && last?.role === 'tool') return { content: 'Created.' };
  return { content: 'tick' };
});
let env = await startTimeSkippingServer();

/**
 * Lets time skip ahead in steps of (at most) 50 intervals (the server runs the firings due meanwhile, one turn each) and reads
 * the firing count after each; returns the wall-clock seconds each block of firings took.
 */
async function followFirings(firings: number, count: () => Promise<number>): Promise<{ blockSeconds: number[]; totalSeconds: number }> {
  const start = performance.now();
  const reachedAt: number[] = [];
  let done = 0;
  let stalled = 0;
  while (done < firings) {
    await env.sleep(`${intervalSeconds * step}s`);
    const now = await count();
    stalled = now === done ? stalled + 1 : 0;
    if (stalled > 20) throw new Error(`no firing in 20 steps of ${step} intervals, stuck at ${done} of ${firings}`);
    done = now;
    if (process.env.BENCH_DEBUG) console.log(`${Math.round(performance.now() - start)} ms: ${done} firings`);
    while (reachedAt.length < Math.floor(done / block)) reachedAt.push(performance.now());
  }
  const totalSeconds = (performance.now() - start) / 1000;
  const blockSeconds = reachedAt.map((at, index) => (at - (index === 0 ? start : reachedAt[index - 1]!)) / 1000);
  return { blockSeconds, totalSeconds };
}

/** The history events of every run of a workflow, following continue-as-new from its first run. */
async function runLengths(client: Client, workflowId: string, firstRunId: string): Promise<number[]> {
  const lengths: number[] = [];
  for await (const events of runHistories(client, workflowId, firstRunId)) lengths.push(events.length);
  return lengths;
}

const throughput = (seconds: number[]) => seconds.map((s) => round(block / s, 1));

// Arbor. The time-skipping server has no custom search attributes; the loop interval is Arbor's default minimum.
const arborWorker = await createArborBenchWorker(env, model, 'bench-arbor', {
  activities: { searchAttributes: false, loopLimits: { min_interval_seconds: intervalSeconds } },
});
const arborPart = await arborWorker.runUntil(async () => {
  const sessionId = `bench-loop-${Date.now()}`;
  const started = await env.client.workflow.start(sessionWorkflowType, {
    taskQueue: 'bench-arbor',
    workflowId: sessionId,
    args: [{ instruction: `loop ${firings} ${sessionId}`, title: 'long loop' }],
  });
  const session = new SessionHandle(sessionId, env.client);
  await waitFor(async () => (await session.snapshot()).loops.length === 1, 50);
  const arbor = await followFirings(firings, async () => (await session.snapshot()).loops[0]?.firings ?? 0);
  const snapshot = await session.waitUntilIdle({ timeoutMs: 120_000 });
  const arborRuns = await runLengths(env.client, sessionId, started.firstExecutionRunId);
  await env.client.workflow
    .getHandle(sessionId)
    .terminate()
    .catch(() => undefined);
  return { arbor, arborRuns, loop: snapshot.loops[0], turns: snapshot.turn };
});
await env.teardown();

// The floor, on a fresh server.
env = await startTimeSkippingServer();
const floorWorker = await createFloorWorker(env, 'bench-bare', bareModelActivities(model));
const floorPart = await floorWorker.runUntil(async () => {
  const bareId = `bare-loop-${Date.now()}`;
  const input: BareLoopInput = { firings: floorFirings, intervalSeconds, historyLimit };
  const bare = await env.client.workflow.start('bareLoopWorkflow', { taskQueue: 'bench-bare', workflowId: bareId, args: [input] });
  const floor = await followFirings(floorFirings, () => bare.query(bareFiringsQuery));
  const floorRuns = await runLengths(env.client, bareId, bare.firstExecutionRunId);
  return { floor, floorRuns };
});
await env.teardown();
await model.fake.stop();
const results = { ...arborPart, ...floorPart };

const arborRate = throughput(results.arbor.blockSeconds);
const floorRate = throughput(results.floor.blockSeconds);
const lastOverFirst = ratio(arborRate.at(-1)!, arborRate[0]!);
const maxEvents = Math.max(...results.arborRuns);
console.table(
  Object.fromEntries(
    arborRate.map((rate, index) => [
      `firings ${index * block + 1}-${(index + 1) * block}`,
      { 'Arbor firings/s': rate, 'floor firings/s': floorRate[index] ?? '' },
    ]),
  ),
);
console.log(
  `loop: ${JSON.stringify({ firings: results.loop?.firings, status: results.loop?.status, reason: results.loop?.reason })}, session turns ${results.turns}`,
);
console.log(`Arbor runs: ${results.arborRuns.length}, events per run ${JSON.stringify(results.arborRuns)}`);
console.log(`floor runs: ${results.floorRuns.length}, events per run ${JSON.stringify(results.floorRuns)}`);
console.log(
  `B8 ${firings} firings in ${round(results.arbor.totalSeconds, 1)} s; first ${block} at ${arborRate[0]}/s (floor ${floorRate[0]}/s); ` +
    `last ${block} over first ${block}: ${lastOverFirst} (target at least 0.9: ${verdict(lastOverFirst >= 0.9)}; the floor's ${ratio(floorRate.at(-1)!, floorRate[0]!)}); ` +
    `most events in a run ${maxEvents} (target under ${historyWarning}: ${verdict(maxEvents < historyWarning)})`,
);
const file = await writeResults('long-loop', {
  benchmark: 'B8 loop firing many times (time-skipping server)',
  firings,
  block,
  interval_seconds: intervalSeconds,
  load_average_at_start: loadAtStart,
  arbor: {
    total_seconds: round(results.arbor.totalSeconds, 1),
    firings_per_second_by_block: arborRate,
    last_over_first: lastOverFirst,
    runs: results.arborRuns.length,
    events_per_run: results.arborRuns,
    max_events_in_a_run: maxEvents,
    loop: results.loop,
    turns: results.turns,
  },
  floor: {
    firings: floorFirings,
    total_seconds: round(results.floor.totalSeconds, 1),
    firings_per_second_by_block: floorRate,
    last_over_first: ratio(floorRate.at(-1)!, floorRate[0]!),
    runs: results.floorRuns.length,
    events_per_run: results.floorRuns,
  },
});
console.log(`written ${file}`);
