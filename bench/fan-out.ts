/**
 * B4 of issue 9: async fan-out of 10, 100 and 500 sub-agents, started and finished. A root session (max_children
 * 500) gets a message; its model asks for N `subAgent` calls (mode async, no tools) in one round; each sub-agent's
 * model answers at once, so each sub-agent is one model call. Measured in the root's history, from the message's
 * signal to the last sub-agent's report (a signal); also, for information, as the client saw it by polling, and to the
 * root being idle again after the notices of their ends.
 * Also the CPU time of this process (worker, client, fake model) per child, which the machine's other load disturbs less.
 * The floor: a bare parent that, on an update (as the SDK sends a message), makes a model call, starts N bare child workflows that each make one
 * model call and tell the parent their final message as they end, makes a model call, and keeps the children's
 * reports, making a model call per batch of them: the same children, activities and signals as Arbor (whose root
 * tells its model, in a turn, that sub-agents have finished). Every model call of the floor sends the request Arbor's
 * session sent for the same call of the same sample (the root's by its step, each child's by its index; the fake model
 * records them while Arbor's sample runs), and gets the same answer back, so the model calls cost the same on both
 * sides. Arbor's own extra work (search attributes, the prepareSession local activity, larger start inputs) counts
 * against it.
 * In each step's last sample, what the server stored: the root's child start events (size, search attributes) and one
 * sub-agent's history against the floor's. BENCH_SAMPLES=n runs n samples a step; BENCH_PHASES=<file> writes when each
 * side's samples ran (monotonic microseconds, as a CPU profile's), for bench/cpu-profile-summary.ts.
 *   npx tsx bench/fan-out.ts [largest fan-out, default 500] [--sqlite] [--no-search-attributes]
 */
import { SessionHandle } from '../src/client/session-handle.js';
import { closedStatuses, sessionWorkflowType } from '../src/shared/session.js';
import { bareFanOutUpdate, bareFinishedChildrenQuery, type FanOutModelCallInput, type FloorModelReply } from './floor-workflows.js';
import { writeFile } from 'node:fs/promises';
import type OpenAI from 'openai';
import type { RecordedRequest } from '../test/support/fake-openai.js';
import {
  benchArgs,
  cpuMeter,
  parentTimeline,
  cpuPerUnit,
  type CpuReading,
  createArborBenchWorker,
  createFloorWorker,
  firstUserText,
  historyTrouble,
  lastMessage,
  loadAverage,
  quietRuntime,
  resultName,
  sleep,
  startDevServer,
  startFakeModel,
  waitFor,
  writeResults,
} from './harness.js';
import { ratio, summary, verdict } from './stats.js';
import { childStartProfile, historyProfile } from './history-profile.js';
import { parentSessionIdKey, rootSessionIdKey, statusKey, titleKey } from '../src/shared/search-attributes.js';
import { recordedRequestReply } from './recorded-request.js';

quietRuntime();
const args = benchArgs();
const largest = args.size ?? 500;
const plan = [
  { children: 10, samples: 15 },
  { children: 100, samples: 15 },
  { children: 500, samples: 3 },
]
  .filter((step) => step.children <= largest)
  .map((step) => (process.env.BENCH_SAMPLES ? { ...step, samples: Number(process.env.BENCH_SAMPLES) } : step));
if (plan.length === 0 || plan.at(-1)!.children !== largest) plan.push({ children: largest, samples: 1 });
const maxChildren = Math.max(500, largest);
const loadAtStart = loadAverage();

type RequestBody = RecordedRequest['body'];
/** The requests Arbor's sessions sent in the sample being run (by its tag): the root's in order, each child's by index. */
const captured = new Map<string, { root: RequestBody[]; children: Map<number, RequestBody> }>();
let capturing = false;

function capture(first: string, body: RequestBody) {
  const root = /^fanout \d+ (\S+)/.exec(first);
  const child = /^child (\d+) of (\S+)/.exec(first);
  const tag = root?.[1] ?? child?.[2];
  if (!tag) return;
  const requests = captured.get(tag) ?? { root: [] as RequestBody[], children: new Map<number, RequestBody>() };
  captured.set(tag, requests);
  if (root) requests.root.push(body);
  else requests.children.set(Number(child![1]), body);
}

const model = await startFakeModel((request) => {
  const first = firstUserText(request);
  const last = lastMessage(request);
  if (capturing) capture(first, request.body);
  const fanOut = /^fanout (\d+) (\S+)/.exec(first);
  if (fanOut && last?.role === 'user' && last.content === first) {
    const [, count, tag] = fanOut;
    return {
      toolCalls: Array.from({ length: Number(count) }, (_, index) => ({
        name: 'subAgent',
        arguments: JSON.stringify({ title: `child ${index}`, instruction: `child ${index} of ${tag}`, mode: 'async', tools: [] }),
      })),
    };
  }
  if (fanOut && last?.role === 'tool') return { content: 'started' };
  if (fanOut) return { content: 'noted' };
  return { content: 'done' };
});
const server = await startDevServer(args.server);
const { env } = server;
const arborWorker = await createArborBenchWorker(env, model, 'bench-arbor', { searchAttributes: args.searchAttributes });
/** The floor's model call: the request Arbor's session sent for the same call of the same sample. */
async function fanOutModelCall({ run, child, step }: FanOutModelCallInput): Promise<FloorModelReply> {
  const requests = captured.get(run);
  const body = child === undefined ? requests?.root[Math.min(step, requests.root.length - 1)] : requests?.children.get(child);
  if (!body)
    throw new Error(
      `no request of Arbor's sample ${run} was captured for ${child === undefined ? `the root's step ${step}` : `child ${child}`}`,
    );
  return recordedRequestReply(model.openai, body as OpenAI.Chat.ChatCompletionCreateParams);
}
const floorWorker = await createFloorWorker(env, 'bench-bare', { fanOutModelCall });

/** When each side's samples ran, in monotonic microseconds (a CPU profile's clock), for BENCH_PHASES. */
const phases: { side: 'arbor' | 'floor'; children: number; start_us: number; end_us: number }[] = [];
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

interface ArborSample {
  /** CPU time of this process (worker, client and fake model) and of the server, from the message until the sub-agents had finished. */
  cpu: CpuReading;
  /** As the server recorded it: from the message's signal to the last sub-agent's report. */
  all_finished_ms: number;
  /** As this client saw it, polling. */
  all_finished_seen_ms: number;
  root_idle_ms: number;
  root_turns: number;
  timeline: Awaited<ReturnType<typeof parentTimeline>>;
}

interface StoredProfile {
  child_starts: Awaited<ReturnType<typeof childStartProfile>>;
  one_child: Awaited<ReturnType<typeof historyProfile>>;
  root: Awaited<ReturnType<typeof historyProfile>>;
}

// Polling is slow enough not to load the worker being measured: the figures come from the server's history.
const pollMs = (children: number) => (children <= 10 ? 20 : children <= 100 ? 100 : 500);

async function arborFanOut(
  children: number,
  label: string,
  profiled = false,
): Promise<ArborSample & { trouble: Awaited<ReturnType<typeof historyTrouble>>; stored?: StoredProfile }> {
  const rootId = `bench-fanout-${label}`;
  const started = await env.client.workflow.start(sessionWorkflowType, {
    taskQueue: 'bench-arbor',
    workflowId: rootId,
    args: [{ title: 'fan-out', max_children: maxChildren }],
  });
  const root = new SessionHandle(rootId, env.client);
  await root.waitUntilIdle({ pollIntervalMs: 20 });
  const start = performance.now();
  const startUs = nowUs();
  const meter = await cpuMeter();
  capturing = true;
  await root.send(`fanout ${children} ${label}`);
  let allFinished = 0;
  let cpu: CpuReading | undefined;
  await waitFor(async () => {
    const snapshot = await root.snapshot();
    if (
      !allFinished &&
      snapshot.children.length === children &&
      snapshot.children.every((child) => closedStatuses.includes(child.status))
    ) {
      allFinished = performance.now() - start;
      cpu = await meter.read();
      phases.push({ side: 'arbor', children, start_us: startUs, end_us: nowUs() });
    }
    return allFinished > 0 && snapshot.status === 'idle' && snapshot.queued_messages === 0;
  }, pollMs(children));
  const rootIdle = performance.now() - start;
  capturing = false;
  const snapshot = await root.snapshot();
  const failed = snapshot.children.filter((child) => child.status !== 'completed').length;
  if (failed > 0) throw new Error(`${failed} sub-agents of ${rootId} did not complete`);
  const trouble = await historyTrouble(env.client, rootId, started.firstExecutionRunId);
  const timeline = await parentTimeline(env.client, rootId, started.firstExecutionRunId, 'sendMessage', 'subAgentFinished');
  const stored = profiled
    ? {
        child_starts: await childStartProfile(env.client, rootId, started.firstExecutionRunId),
        one_child: await historyProfile(env.client, snapshot.children[0]!.sub_session_id),
        root: await historyProfile(env.client, rootId, started.firstExecutionRunId),
      }
    : undefined;
  await env.client.workflow.getHandle(rootId).terminate();
  return {
    stored,
    cpu: cpu!,
    timeline,
    all_finished_ms: timeline.last_report_ms,
    all_finished_seen_ms: allFinished,
    root_idle_ms: rootIdle,
    root_turns: snapshot.turn,
    trouble,
  };
}

/** The floor's sample, sending the model requests of Arbor's sample `label`. */
/** BENCH_FLOOR_EXTRAS=1: each sample also runs the floor with what Arbor's child start carries beyond the floor's. */
const floorExtras = process.env.BENCH_FLOOR_EXTRAS === '1';
const startExtras = (parentId: string) => ({
  searchAttributes: {
    [parentSessionIdKey.name]: [parentId],
    [rootSessionIdKey.name]: [parentId],
    [statusKey.name]: ['running'],
    [titleKey.name]: ['child'],
  },
  // Brings the child's start input from the floor's 77 bytes to Arbor's 637.
  padding: 'x'.repeat(540),
});

async function floorFanOut(children: number, label: string, profiled = false, extras = false) {
  const parentId = `bare-fanout-${label}${extras ? '-extras' : ''}`;
  const parent = await env.client.workflow.start('bareFanOutWorkflow', { taskQueue: 'bench-bare', workflowId: parentId });
  await waitFor(async () => (await parent.describe()).historyLength >= 4, 5);
  const start = performance.now();
  const startUs = nowUs();
  const meter = await cpuMeter();
  await parent.executeUpdate(bareFanOutUpdate, {
    args: [{ run: label, children, ...(extras ? { startExtras: startExtras(parentId) } : {}) }],
  });
  await waitFor(async () => (await parent.query(bareFinishedChildrenQuery)) === children, pollMs(children));
  const elapsed = performance.now() - start;
  const cpu = await meter.read();
  if (!extras) phases.push({ side: 'floor', children, start_us: startUs, end_us: nowUs() });
  const timeline = await parentTimeline(env.client, parent.workflowId, parent.firstExecutionRunId, 'bareFanOut', 'bareChildReport');
  const stored: StoredProfile | undefined = profiled
    ? {
        child_starts: await childStartProfile(env.client, parent.workflowId, parent.firstExecutionRunId),
        one_child: await historyProfile(env.client, `${parent.workflowId}.0.0`),
        root: await historyProfile(env.client, parent.workflowId, parent.firstExecutionRunId),
      }
    : undefined;
  await parent.terminate();
  if (extras || !floorExtras) captured.delete(label);
  return { ms: timeline.last_report_ms, seen_ms: elapsed, cpu, timeline, stored };
}

const results = await arborWorker.runUntil(() =>
  floorWorker.runUntil(async () => {
    // Warm-up: one small fan-out of each.
    const warmUp = `warmup-${Date.now()}`;
    await arborFanOut(10, warmUp);
    await floorFanOut(10, warmUp);
    const out = [];
    for (const step of plan) {
      const arbor: ArborSample[] = [];
      const floor: Omit<Awaited<ReturnType<typeof floorFanOut>>, 'stored'>[] = [];
      const trouble = [];
      let stored: { arbor?: StoredProfile; floor?: StoredProfile } = {};
      const withExtras: Omit<Awaited<ReturnType<typeof floorFanOut>>, 'stored'>[] = [];
      let extrasStarts: StoredProfile['child_starts'] | undefined;
      for (let i = 0; i < step.samples; i++) {
        console.log(`fan-out of ${step.children}: sample ${i + 1} of ${step.samples}`);
        const label = `${step.children}-${i}-${Date.now()}`;
        const last = i === step.samples - 1;
        const { trouble: rootTrouble, stored: arborStored, ...sample } = await arborFanOut(step.children, label, last);
        arbor.push(sample);
        trouble.push(rootTrouble);
        await sleep(500);
        const { stored: floorStored, ...floorSample } = await floorFanOut(step.children, label, last);
        floor.push(floorSample);
        if (floorExtras) {
          await sleep(500);
          const { stored: extrasStored, ...extrasSample } = await floorFanOut(step.children, label, last, true);
          withExtras.push(extrasSample);
          if (last) extrasStarts = extrasStored?.child_starts;
        }
        if (last) stored = { arbor: arborStored, floor: floorStored };
        await sleep(500);
      }
      const allFinished = summary(arbor.map((sample) => sample.all_finished_ms));
      const floorSummary = summary(floor.map((sample) => sample.ms));
      const arborCpu = cpuPerUnit(
        arbor.map((sample) => sample.cpu),
        step.children,
      );
      const floorCpu = cpuPerUnit(
        floor.map((sample) => sample.cpu),
        step.children,
      );
      out.push({
        children: step.children,
        samples: step.samples,
        arbor_all_finished_ms: allFinished,
        arbor_all_finished_seen_by_client_ms: summary(arbor.map((sample) => sample.all_finished_seen_ms)),
        floor_all_finished_seen_by_client_ms: summary(floor.map((sample) => sample.seen_ms)),
        arbor_root_idle_ms: summary(arbor.map((sample) => sample.root_idle_ms)),
        arbor_root_turns: arbor.map((sample) => sample.root_turns),
        floor_all_finished_ms: floorSummary,
        ratio_p50: ratio(allFinished.p50, floorSummary.p50),
        worker_cpu_ms_per_child: { arbor: arborCpu.worker, floor: floorCpu.worker },
        server_cpu_ms_per_child: { arbor: arborCpu.server, floor: floorCpu.server },
        ms_per_child: {
          arbor: Math.round((allFinished.p50 / step.children) * 100) / 100,
          floor: Math.round((floorSummary.p50 / step.children) * 100) / 100,
        },
        root_history: trouble,
        stored_last_sample: stored,
        floor_with_start_extras: floorExtras
          ? {
              all_finished_ms: summary(withExtras.map((sample) => sample.ms)),
              ratio_to_floor_p50: ratio(summary(withExtras.map((sample) => sample.ms)).p50, floorSummary.p50),
              cpu_ms_per_child: cpuPerUnit(
                withExtras.map((sample) => sample.cpu),
                step.children,
              ),
              child_starts: extrasStarts,
            }
          : undefined,
        timelines: { arbor: arbor.map((sample) => sample.timeline), floor: floor.map((sample) => sample.timeline) },
      });
    }
    return out;
  }),
);
await server.teardown();
await model.fake.stop();

console.table(
  Object.fromEntries(
    results.map((row) => [
      `${row.children} sub-agents`,
      {
        'Arbor p50 ms': row.arbor_all_finished_ms.p50,
        'Arbor max ms': row.arbor_all_finished_ms.max,
        'floor p50 ms': row.floor_all_finished_ms.p50,
        'floor max ms': row.floor_all_finished_ms.max,
        ratio: row.ratio_p50,
        'root idle again p50 ms': row.arbor_root_idle_ms.p50,
        'worker CPU ms/child Arbor': row.worker_cpu_ms_per_child.arbor,
        'worker CPU ms/child floor': row.worker_cpu_ms_per_child.floor,
        'server CPU ms/child Arbor': row.server_cpu_ms_per_child.arbor,
        'server CPU ms/child floor': row.server_cpu_ms_per_child.floor,
      },
    ]),
  ),
);
for (const row of results) {
  console.log(
    `B4 fan-out of ${row.children}: ${row.ratio_p50}x the floor at p50 (target 1.10x: ${verdict(row.ratio_p50 <= 1.1)}); ${row.ms_per_child.arbor} ms per sub-agent, ` +
      `floor ${row.ms_per_child.floor} ms per child; worker CPU ${row.worker_cpu_ms_per_child.arbor} ms per sub-agent, floor ${row.worker_cpu_ms_per_child.floor} ms; ` +
      `server CPU ${row.server_cpu_ms_per_child.arbor} ms per sub-agent, floor ${row.server_cpu_ms_per_child.floor} ms`,
  );
}
for (const row of results) {
  const { arbor, floor } = row.stored_last_sample;
  console.log(
    `B4 fan-out of ${row.children}, stored: a child start event ${arbor?.child_starts.initiated_event_bytes} bytes ` +
      `(input ${arbor?.child_starts.input_bytes}, search attributes ${arbor?.child_starts.search_attribute_bytes}: ${arbor?.child_starts.search_attributes.join(', ')}; memo ${arbor?.child_starts.memo_bytes}), ` +
      `floor ${floor?.child_starts.initiated_event_bytes} (input ${floor?.child_starts.input_bytes}); one sub-agent's history ${arbor?.one_child.events} events, ${arbor?.one_child.bytes} bytes, ` +
      `floor ${floor?.one_child.events} events, ${floor?.one_child.bytes} bytes; root per sub-agent ${Math.round((arbor?.root.bytes ?? 0) / row.children)} bytes, floor ${Math.round((floor?.root.bytes ?? 0) / row.children)}`,
  );
  console.log(
    `  one sub-agent's events by type: Arbor ${JSON.stringify(arbor?.one_child.by_type)}; floor ${JSON.stringify(floor?.one_child.by_type)}`,
  );
}
for (const row of results) {
  const extras = row.floor_with_start_extras;
  if (!extras) continue;
  console.log(
    `B4 fan-out of ${row.children}, the floor with Arbor's child start extras (${extras.child_starts?.initiated_event_bytes} bytes a start event): ` +
      `${extras.all_finished_ms.p50} ms at p50, ${extras.ratio_to_floor_p50}x the plain floor; worker CPU ${extras.cpu_ms_per_child.worker} ms per child ` +
      `(plain ${row.worker_cpu_ms_per_child.floor}), server CPU ${extras.cpu_ms_per_child.server} (plain ${row.server_cpu_ms_per_child.floor})`,
  );
}
if (process.env.BENCH_PHASES) await writeFile(process.env.BENCH_PHASES, JSON.stringify(phases));
for (const row of results)
  console.log(`B4 fan-out of ${row.children}, root timelines (ms from the message): ${JSON.stringify(row.timelines)}`);
const file = await writeResults(resultName('fan-out', args.server, args.searchAttributes), {
  benchmark: 'B4 async fan-out',
  server: args.server,
  search_attributes: args.searchAttributes,
  max_children: maxChildren,
  load_average_at_start: loadAtStart,
  fan_outs: results,
});
console.log(`written ${file}`);
