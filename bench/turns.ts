/**
 * B1 and B7 of issue 9: the latency of one turn (one model call, no tools) against the same work in bare Temporal
 * code and in process with no Temporal, and the history events and bytes each turn adds.
 *   npx tsx bench/turns.ts [turns] [--sqlite] [--no-search-attributes]
 */
import { SessionHandle } from '../src/client/session-handle.js';
import { sessionWorkflowType } from '../src/shared/session.js';
import { bareMessageUpdate, bareTurnsQuery } from './floor-workflows.js';
import {
  bareModelActivities,
  benchArgs,
  createArborBenchWorker,
  createFloorWorker,
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
const { openai } = model;
const server = await startDevServer(args.server);
const { env } = server;
const arborWorker = await createArborBenchWorker(env, model, 'bench-arbor', { searchAttributes: args.searchAttributes });
const bareWorker = await createFloorWorker(env, 'bench-bare', bareModelActivities(model));

const figures = await arborWorker.runUntil(() => bareWorker.runUntil(measure));
async function measure() {
  // Zero line: the same model call in process.
  const inProcess: number[] = [];
  for (let i = 0; i < turns + warmup; i++) {
    const start = performance.now();
    await openai.chat.completions.create({ model: 'bench', messages: [{ role: 'user', content: `turn ${i}` }] });
    if (i >= warmup) inProcess.push(performance.now() - start);
  }

  // Floor: bare workflow, one message (an update, as the SDK's send is since the sendMessage update) and one activity
  // per turn. Arbor: a root session, one user message and one model
  // call per turn. Turns alternate, Arbor then floor, so that the shared machine's load hits both alike.
  const bare = await env.client.workflow.start('bareTurnWorkflow', { taskQueue: 'bench-bare', workflowId: `bare-${Date.now()}` });
  const sessionId = `bench-${Date.now()}`;
  await env.client.workflow.start(sessionWorkflowType, { taskQueue: 'bench-arbor', workflowId: sessionId, args: [{ title: 'bench' }] });
  const session = new SessionHandle(sessionId, env.client);
  const bareTimes: number[] = [];
  const arborTimes: number[] = [];
  const eventsAfter: number[] = [];
  const bytesAfter: number[] = [];
  for (let i = 0; i < turns + warmup; i++) {
    let start = performance.now();
    await session.send(`turn ${i} ${'x'.repeat(200)}`);
    await waitFor(async () => {
      const snapshot = await session.snapshot();
      return snapshot.turn === i + 1 && snapshot.status === 'idle';
    });
    if (i >= warmup) arborTimes.push(performance.now() - start);
    const description = await env.client.workflow.getHandle(sessionId).describe();
    eventsAfter.push(description.historyLength);
    bytesAfter.push(Number(description.raw.workflowExecutionInfo?.historySizeBytes ?? 0));

    start = performance.now();
    await bare.executeUpdate(bareMessageUpdate, { args: [`turn ${i}`] });
    await waitFor(async () => (await bare.query(bareTurnsQuery)) === i + 1);
    if (i >= warmup) bareTimes.push(performance.now() - start);
  }
  const bareHistory = await bare.fetchHistory();
  await bare.terminate();
  await env.client.workflow.getHandle(sessionId).terminate();
  const perTurn = (values: number[]) => (values.at(-1)! - values[warmup - 1]!) / turns;
  const firstTenBytes = (bytesAfter[warmup + 9]! - bytesAfter[warmup - 1]!) / 10;
  const lastTenBytes = (bytesAfter.at(-1)! - bytesAfter.at(-11)!) / 10;
  return {
    b1_turn_ms: { arbor: percentiles(arborTimes), bare_floor: percentiles(bareTimes), in_process: percentiles(inProcess) },
    b1_ratio_p50: Math.round((percentiles(arborTimes).p50 / percentiles(bareTimes).p50) * 100) / 100,
    b7_events_per_turn: {
      arbor: perTurn(eventsAfter),
      bare_floor: Math.round(((bareHistory.events?.length ?? 0) / (turns + warmup)) * 10) / 10,
    },
    b7_bytes_per_turn: { first_ten: Math.round(firstTenBytes), last_ten: Math.round(lastTenBytes) },
  };
}

await server.teardown();
await model.fake.stop();
console.table(figures.b1_turn_ms);
console.log(`B1 one turn, p50 ratio to the bare floor: ${figures.b1_ratio_p50}x (target at most 1.15x)`);
console.log(
  `B7 history events per turn: Arbor ${figures.b7_events_per_turn.arbor}, bare floor ${figures.b7_events_per_turn.bare_floor} (target: the floor's, 11 with a message sent as an update)`,
);
console.log(
  `B7 history bytes per turn: first ten turns ${figures.b7_bytes_per_turn.first_ten}, last ten ${figures.b7_bytes_per_turn.last_ten} (should not grow with the conversation)`,
);
await writeResults(resultName('turns', args.server, args.searchAttributes), {
  server: args.server,
  search_attributes: args.searchAttributes,
  turns,
  load_average_at_start: loadAtStart,
  ...figures,
});
