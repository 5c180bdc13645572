/**
 * B5 of issue 9: stopping a tree of 1+10+100 sessions (a root, 10 sub-agents, each with 10 sub-agents) and a chain
 * 50 deep (max_depth 50), and counting orphans: sessions of the tree still running once the stop has returned.
 * Each session's scripted model spawns its sub-agents (async) and answers; the leaves sleep in the `wait` tool (an
 * hour-long durable timer), so the inner sessions wait for them. Timed: `SessionHandle.stop()` as a caller sees it
 * (it lists the tree, cancels the root, waits for it, and describes every member), and the cancellation alone (from
 * the call to the root's close time). The floor: the same tree of bare workflows, each cancelling its children,
 * waiting for them and then signalling its parent (leaves first, as Arbor does), cancelled at the root and awaited.
 *   npx tsx bench/stop-tree.ts [width, default 10: a 1+w+w² tree and a 5w-deep chain] [--sqlite] [--no-search-attributes]
 */
import type { Client } from '@temporalio/client';
import { SessionHandle } from '../src/client/session-handle.js';
import { closedStatuses, sessionWorkflowType, type SessionSnapshot } from '../src/shared/session.js';
import {
  benchArgs,
  cancellationSpanInHistory,
  cpuMeter,
  cpuPerUnit,
  createArborBenchWorker,
  createFloorWorker,
  bareModelActivities,
  firstUserText,
  lastMessage,
  loadAverage,
  quietRuntime,
  resultName,
  sleep,
  startDevServer,
  startFakeModel,
  stillRunning,
  waitFor,
  writeResults,
} from './harness.js';
import { ratio, summary, verdict } from './stats.js';

quietRuntime();
const args = benchArgs();
const width = args.size ?? 10;
const shapes = [
  { name: `tree 1+${width}+${width * width}`, fanout: [width, width], samples: 3 },
  { name: `chain ${width * 5} deep`, fanout: Array.from({ length: width * 5 }, () => 1), samples: 3 },
];
const loadAtStart = loadAverage();

// A session's instruction is "node <widths below, comma-separated> <tag>": it spawns that many sub-agents, each given
// the rest of the widths; with none left it is a leaf and waits an hour.
const model = await startFakeModel((request) => {
  const node = /^node (\S*) (\S+)$/.exec(firstUserText(request));
  if (!node) return { content: 'ok' };
  const [, spec, tag = ''] = node;
  const [widthHere, ...below] = spec ? spec.split(',').map(Number) : [];
  const last = lastMessage(request);
  if (last?.role === 'user' && last.content === firstUserText(request)) {
    if (widthHere === undefined) return { toolCalls: [{ name: 'wait', arguments: JSON.stringify({ seconds: 3600, reason: 'leaf' }) }] };
    return {
      toolCalls: Array.from({ length: widthHere }, (_, index) => ({
        name: 'subAgent',
        arguments: JSON.stringify({
          title: `level ${tag.split('.').length} #${index}`,
          instruction: `node ${below.join(',')} ${tag}.${index}`,
          mode: 'async',
          tools: ['subAgent', 'wait'],
        }),
      })),
    };
  }
  return { content: 'spawned' };
});
const server = await startDevServer(args.server);
const { env } = server;
const arborWorker = await createArborBenchWorker(env, model, 'bench-arbor', {
  worker: { maxCachedWorkflows: 2_000 },
  searchAttributes: args.searchAttributes,
});
const floorWorker = await createFloorWorker(env, 'bench-bare', bareModelActivities(model), { maxCachedWorkflows: 2_000 });

const treeSize = (fanout: number[]) =>
  fanout.reduce((sum, _, depth) => sum + fanout.slice(0, depth + 1).reduce((product, w) => product * w, 1), 1);

/** Every session below the root, found through the children each records, with its snapshot. */
async function arborTree(client: Client, rootId: string): Promise<SessionSnapshot[]> {
  const found: SessionSnapshot[] = [];
  let frontier = [rootId];
  while (frontier.length > 0) {
    const snapshots = await Promise.all(frontier.map((id) => new SessionHandle(id, client).snapshot()));
    found.push(...snapshots);
    frontier = snapshots.flatMap((snapshot) => snapshot.children.map((child) => child.sub_session_id));
  }
  return found;
}

async function arborStop(fanout: number[], label: string) {
  const rootId = `bench-stop-${label}`;
  const expected = treeSize(fanout);
  await env.client.workflow.start(sessionWorkflowType, {
    taskQueue: 'bench-arbor',
    workflowId: rootId,
    args: [{ title: 'stop bench', instruction: `node ${fanout.join(',')} ${label}`, max_depth: Math.max(4, fanout.length) }],
  });
  const buildStart = performance.now();
  let members: SessionSnapshot[] = [];
  await waitFor(async () => {
    members = await arborTree(env.client, rootId);
    const ended = members.find((member) => closedStatuses.includes(member.status));
    if (ended)
      throw new Error(`session ${ended.session_id} of the tree ended (${ended.status}: ${ended.last_message?.content}) before the stop`);
    if (members.length !== expected) return false;
    return members.every((member) => (member.depth === fanout.length ? member.waiting !== null : member.status === 'idle'));
  }, 250);
  const buildMs = performance.now() - buildStart;
  const ids = members.map((member) => member.session_id);
  const startedAt = Date.now();
  const start = performance.now();
  const meter = await cpuMeter();
  const stopped = await new SessionHandle(rootId, env.client).stop();
  const stopMs = performance.now() - start;
  const cpu = await meter.read();
  const orphans = await stillRunning(env.client, ids);
  const rootClosed = (await env.client.workflow.getHandle(rootId).describe()).closeTime?.getTime() ?? NaN;
  const cancellation = await cancellationSpanInHistory(env.client, rootId);
  return {
    sessions: ids.length,
    build_ms: buildMs,
    stop_ms: stopMs,
    cancel_ms: rootClosed - startedAt,
    cancellation_ms: cancellation,
    total_stopped: stopped.total_stopped,
    orphans: orphans.length,
    cpu,
  };
}

/** The ids of a bare tree: the root, then each child as `<parent>.<index>`. */
function bareTreeIds(rootId: string, fanout: number[]): string[] {
  const ids = [rootId];
  let level = [rootId];
  for (const widthHere of fanout) {
    level = level.flatMap((parent) => Array.from({ length: widthHere }, (_, index) => `${parent}.${index}`));
    ids.push(...level);
  }
  return ids;
}

async function floorStop(fanout: number[], label: string) {
  const rootId = `bare-stop-${label}`;
  const ids = bareTreeIds(rootId, fanout);
  const leaves = ids.slice(ids.length - fanout.reduce((product, w) => product * w, 1));
  const handle = await env.client.workflow.start('bareTreeWorkflow', { taskQueue: 'bench-bare', workflowId: rootId, args: [fanout] });
  const buildStart = performance.now();
  // Ready when every leaf has started its timer (workflow started, a workflow task, the timer: 5 events).
  await waitFor(async () => {
    for (const leaf of leaves) {
      const length = await env.client.workflow
        .getHandle(leaf)
        .describe()
        .then((description) => description.historyLength)
        .catch(() => 0);
      if (length < 5) return false;
    }
    return true;
  }, 250);
  const buildMs = performance.now() - buildStart;
  await sleep(200);
  const start = performance.now();
  const meter = await cpuMeter();
  await handle.cancel();
  await handle.result().catch(() => undefined);
  const cancelMs = performance.now() - start;
  const cpu = await meter.read();
  const orphans = await stillRunning(env.client, ids);
  const cancellation = await cancellationSpanInHistory(env.client, rootId);
  return { sessions: ids.length, build_ms: buildMs, cancel_ms: cancelMs, cancellation_ms: cancellation, orphans: orphans.length, cpu };
}

const results = await arborWorker.runUntil(() =>
  floorWorker.runUntil(async () => {
    // Warm-up: a small tree of each.
    await arborStop([2, 2], `warmup-${Date.now()}`);
    await floorStop([2, 2], `warmup-${Date.now()}`);
    const out = [];
    for (const shape of shapes) {
      const arbor = [];
      const floor = [];
      for (let i = 0; i < shape.samples; i++) {
        console.log(`${shape.name}: sample ${i + 1} of ${shape.samples}`);
        arbor.push(await arborStop(shape.fanout, `${i}-${Date.now()}`));
        await sleep(500);
        floor.push(await floorStop(shape.fanout, `${i}-${Date.now()}`));
        await sleep(500);
      }
      const stop = summary(arbor.map((sample) => sample.stop_ms));
      const cancel = summary(arbor.map((sample) => sample.cancel_ms));
      const floorCancel = summary(floor.map((sample) => sample.cancel_ms));
      out.push({
        shape: shape.name,
        sessions: treeSize(shape.fanout),
        samples: shape.samples,
        arbor_stop_ms: stop,
        arbor_cancel_to_root_closed_ms: cancel,
        floor_cancel_ms: floorCancel,
        ratio_stop_p50: ratio(stop.p50, floorCancel.p50),
        ratio_cancel_p50: ratio(cancel.p50, floorCancel.p50),
        // From the root's cancel request to its close, in each root's history: the tree's cancellation alone.
        arbor_cancellation_in_history_ms: summary(arbor.map((sample) => sample.cancellation_ms)),
        floor_cancellation_in_history_ms: summary(floor.map((sample) => sample.cancellation_ms)),
        arbor_total_stopped: arbor.map((sample) => sample.total_stopped),
        arbor_orphans: arbor.reduce((sum, sample) => sum + sample.orphans, 0),
        floor_orphans: floor.reduce((sum, sample) => sum + sample.orphans, 0),
        cpu_ms_per_session: {
          arbor: cpuPerUnit(
            arbor.map((sample) => sample.cpu),
            treeSize(shape.fanout),
          ),
          floor: cpuPerUnit(
            floor.map((sample) => sample.cpu),
            treeSize(shape.fanout),
          ),
        },
        arbor_build_ms: summary(arbor.map((sample) => sample.build_ms)),
        floor_build_ms: summary(floor.map((sample) => sample.build_ms)),
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
      row.shape,
      {
        'Arbor stop() p50 ms': row.arbor_stop_ms.p50,
        'Arbor stop() max ms': row.arbor_stop_ms.max,
        'Arbor cancel p50 ms': row.arbor_cancel_to_root_closed_ms.p50,
        'floor p50 ms': row.floor_cancel_ms.p50,
        'floor max ms': row.floor_cancel_ms.max,
        'cancellation in history p50 ms Arbor': row.arbor_cancellation_in_history_ms.p50,
        'cancellation in history p50 ms floor': row.floor_cancellation_in_history_ms.p50,
        'orphans Arbor': row.arbor_orphans,
        'orphans floor': row.floor_orphans,
        'worker CPU ms/session Arbor': row.cpu_ms_per_session.arbor.worker,
        'worker CPU ms/session floor': row.cpu_ms_per_session.floor.worker,
        'server CPU ms/session Arbor': row.cpu_ms_per_session.arbor.server,
        'server CPU ms/session floor': row.cpu_ms_per_session.floor.server,
      },
    ]),
  ),
);
for (const row of results) {
  console.log(
    `B5 ${row.shape}: stop() ${row.ratio_stop_p50}x the floor at p50 (target 1.2x: ${verdict(row.ratio_stop_p50 <= 1.2)}), ` +
      `cancellation alone ${row.ratio_cancel_p50}x, in the root's history ` +
      `${ratio(row.arbor_cancellation_in_history_ms.p50, row.floor_cancellation_in_history_ms.p50)}x; orphans ${row.arbor_orphans} (target 0: ${verdict(row.arbor_orphans === 0)}); ` +
      `stopped per run ${JSON.stringify(row.arbor_total_stopped)} of ${row.sessions}`,
  );
}
const file = await writeResults(resultName('stop-tree', args.server, args.searchAttributes), {
  benchmark: 'B5 stop a tree',
  server: args.server,
  search_attributes: args.searchAttributes,
  load_average_at_start: loadAtStart,
  shapes: results,
});
console.log(`written ${file}`);
