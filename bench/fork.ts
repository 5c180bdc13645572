/**
 * Issue 30: forking a tree of 1+10 sessions (a root and 10 sub-agents, each kept running by a loop after its first
 * turn) at the root's latest turn end. Timed: `session.fork()` as a caller sees it (reading every member's history,
 * replaying it locally with the fork probe, starting the new tree), and until every member of the new tree has
 * finished its first workflow task; counted: the new tree's history events once it is quiet. The floor does equal
 * work on the Temporal side: it starts the same 11 sessions with the same inputs (the same carried state, read from
 * the forked members' start events beforehand) and waits for the same first workflow tasks, but reads nothing.
 *   npx tsx bench/fork.ts [samples, default 5] [--sqlite]
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { SessionHandle } from '../src/client/session-handle.js';
import { forkTree } from '../src/client/fork/fork-tree.js';
import { forkBundlePath } from '../src/client/fork/fork-bundle.js';
import { sessionWorkflowType, type SessionInput } from '../src/shared/session.js';
import {
  benchArgs,
  createArborBenchWorker,
  firstUserText,
  lastMessage,
  loadAverage,
  quietRuntime,
  resultName,
  startDevServer,
  startFakeModel,
  waitFor,
  writeResults,
} from './harness.js';
import { ratio, summary } from './stats.js';

quietRuntime();
const args = benchArgs();
const samples = args.size ?? 5;
const width = 10;
const loadAtStart = loadAverage();

// The root spawns the sub-agents, then answers; each sub-agent makes an hour-long loop (which keeps it running) and answers.
const model = await startFakeModel((request) => {
  const task = firstUserText(request);
  const last = lastMessage(request);
  const first = last?.role === 'user' && last.content === task;
  if (task.startsWith('root') && first)
    return {
      toolCalls: Array.from({ length: width }, (_, index) => ({
        name: 'subAgent',
        arguments: JSON.stringify({ title: `helper ${index}`, instruction: `helper ${index}`, mode: 'async', tools: ['createLoop'] }),
      })),
    };
  if (task.startsWith('helper') && first)
    return { toolCalls: [{ name: 'createLoop', arguments: JSON.stringify({ prompt: 'Check again', interval_seconds: 3600 }) }] };
  return { content: 'ok' };
});
const server = await startDevServer(args.server);
const { env } = server;
const worker = await createArborBenchWorker(env, model, 'bench-fork', { worker: { maxCachedWorkflows: 1_000 } });
const running = worker.run();

/** Ids of a tree's members, from the children each records. */
async function members(client: Client, rootId: string): Promise<string[]> {
  const found: string[] = [];
  let frontier = [rootId];
  while (frontier.length > 0) {
    found.push(...frontier);
    const snapshots = await Promise.all(frontier.map((id) => new SessionHandle(id, client).snapshot()));
    frontier = snapshots.flatMap((snapshot) => snapshot.children.map((child) => child.sub_session_id));
  }
  return found;
}

async function historyLength(client: Client, id: string): Promise<number> {
  return (await client.workflow.getHandle(id).describe()).historyLength;
}

/** Until every workflow has completed a workflow task and has no other one pending: all of them quiet. */
async function quiet(client: Client, ids: readonly string[]): Promise<void> {
  await waitFor(async () => {
    const described = await Promise.all(ids.map((id) => client.workflow.getHandle(id).describe()));
    return described.every((description) => description.historyLength >= 4 && description.raw.pendingWorkflowTask == null);
  }, 20);
}

// The source tree: the root's first turn spawns 10 helpers; once each has ended its turn, a second root turn.
const source = `bench-fork-source-${randomUUID()}`;
await env.client.workflow.start(sessionWorkflowType, {
  taskQueue: 'bench-fork',
  workflowId: source,
  args: [{ title: 'fork bench', instruction: 'root: start the helpers' } satisfies SessionInput],
});
const root = new SessionHandle(source, env.client);
await waitFor(async () => {
  const snapshot = await root.snapshot();
  if (snapshot.children.length < width) return false;
  const helpers = await Promise.all(snapshot.children.map((child) => new SessionHandle(child.sub_session_id, env.client).snapshot()));
  return helpers.every((helper) => helper.turn === 1 && helper.status === 'idle' && helper.loops.length === 1);
}, 50);
await root.send('root: how are they doing?');
await waitFor(async () => {
  const snapshot = await root.snapshot();
  return snapshot.turn === 2 && snapshot.status === 'idle';
}, 50);
const sourceMembers = await members(env.client, source);
await forkBundlePath(); // bundled once per process (a package build ships it prebuilt): not part of a fork's time

const forkMs: number[] = [];
const forkReadyMs: number[] = [];
const forkEvents: number[] = [];
const floorMs: number[] = [];
const floorEvents: number[] = [];
for (let sample = 0; sample < samples; sample++) {
  const start = performance.now();
  const fork = await forkTree(env.client, source);
  forkMs.push(performance.now() - start);
  const ids = fork.members.map((member) => member.session_id);
  await quiet(env.client, ids);
  forkReadyMs.push(performance.now() - start);
  forkEvents.push((await Promise.all(ids.map((id) => historyLength(env.client, id)))).reduce((sum, n) => sum + n, 0));

  // The floor: the same 11 starts with the same inputs (new ids throughout), read from the fork's start events first.
  const inputs = await Promise.all(
    ids.map(async (id) => {
      const history = await env.client.workflow.getHandle(id).fetchHistory();
      const payload = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
      return JSON.parse(Buffer.from(payload.data!).toString('utf8')) as SessionInput;
    }),
  );
  const floorIds = new Map(ids.map((id) => [id, `bench-fork-floor-${randomUUID()}`]));
  const renamed = inputs.map((input) => {
    let text = JSON.stringify(input);
    for (const [from, to] of floorIds) text = text.split(from).join(to);
    return JSON.parse(text) as SessionInput;
  });
  const floorStart = performance.now();
  for (const [index, id] of ids.entries()) {
    await env.client.workflow.start(sessionWorkflowType, {
      taskQueue: 'bench-fork',
      workflowId: floorIds.get(id)!,
      args: [renamed[index]!],
    });
  }
  await quiet(env.client, [...floorIds.values()]);
  floorMs.push(performance.now() - floorStart);
  floorEvents.push((await Promise.all([...floorIds.values()].map((id) => historyLength(env.client, id)))).reduce((sum, n) => sum + n, 0));
}

const fork = summary(forkMs);
const ready = summary(forkReadyMs);
const floor = summary(floorMs);
const table = {
  tree: `1+${width}`,
  source_members: sourceMembers.length,
  samples,
  fork_call_ms: fork,
  fork_until_quiet_ms: ready,
  floor_until_quiet_ms: floor,
  ratio_p50: ratio(ready.p50, floor.p50),
  fork_history_events: summary(forkEvents),
  floor_history_events: summary(floorEvents),
  load_average_at_start: loadAtStart,
};
console.log(`fork of a 1+${width} tree at its root's latest turn end, ${samples} samples (load ${loadAtStart.join(' ')})`);
console.log(`  fork() returns:            p50 ${fork.p50.toFixed(0)} ms, p95 ${fork.p95.toFixed(0)} ms`);
console.log(`  new tree quiet:            p50 ${ready.p50.toFixed(0)} ms, p95 ${ready.p95.toFixed(0)} ms`);
console.log(`  floor (same 11 starts):    p50 ${floor.p50.toFixed(0)} ms, p95 ${floor.p95.toFixed(0)} ms  -> ${table.ratio_p50}x`);
console.log(`  history events, new tree:  ${summary(forkEvents).p50} (floor ${summary(floorEvents).p50})`);
console.log(`results: ${await writeResults(resultName('fork', args.server), table)}`);
worker.shutdown();
await running;
await model.fake.stop();
await server.teardown();
