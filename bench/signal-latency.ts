/**
 * B3 of issue 9: from a user message (a signal) to the model call starting, i.e. from `session.send` to the fake
 * model server receiving the request. The floor: a bare workflow that, on an update (as the SDK sends a message), runs an
 * activity making the same model call (bench/floor-workflows.ts, bareTurnWorkflow): the request Arbor's session sent
 * for the same turn (system prompt, tool specs, conversation, streamed), read to its end as Arbor reads it. The zero
 * line: the model call made in process. Samples alternate Arbor and floor; each waits for the turn to end before the
 * next message.
 *   npx tsx bench/signal-latency.ts [samples] [--sqlite] [--no-search-attributes]
 */
import { SessionHandle } from '../src/client/session-handle.js';
import { sessionWorkflowType } from '../src/shared/session.js';
import { bareMessageUpdate, bareTurnsQuery } from './floor-workflows.js';
import type OpenAI from 'openai';
import { recordedRequestReply } from './recorded-request.js';
import {
  benchArgs,
  createArborBenchWorker,
  createFloorWorker,
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
import { percentiles, ratio, verdict } from './stats.js';
import type { RecordedRequest } from '../test/support/fake-openai.js';

quietRuntime();
const args = benchArgs();
const samples = args.size ?? 200;
const warmup = 10;
const loadAtStart = loadAverage();

// The moment the fake model receives a request (its body read), for whoever waits for it.
let arrival: ((at: number) => void) | undefined;
const nextArrival = () => new Promise<number>((resolve) => (arrival = resolve));
// Arbor's request of each turn, by its message, which the floor's model call of the same turn sends again.
const arborRequests = new Map<string, RecordedRequest['body']>();
const model = await startFakeModel((request) => {
  arrival?.(performance.now());
  arrival = undefined;
  const last = lastMessage(request);
  if (last?.role === 'user' && typeof last.content === 'string' && !arborRequests.has(last.content))
    arborRequests.set(last.content, request.body);
  return { content: 'ok' };
});
const server = await startDevServer(args.server);
const { env } = server;
const arborWorker = await createArborBenchWorker(env, model, 'bench-arbor', { searchAttributes: args.searchAttributes });
const floorWorker = await createFloorWorker(env, 'bench-bare', {
  async bareModelCall(text: string): Promise<string> {
    const body = arborRequests.get(text);
    if (!body) throw new Error(`no request of Arbor's turn "${text}" was recorded`);
    const reply = await recordedRequestReply(model.openai, body as OpenAI.Chat.ChatCompletionCreateParams);
    arborRequests.delete(text);
    return reply.content ?? '';
  },
});

const measured = await arborWorker.runUntil(() => floorWorker.runUntil(measure));
async function measure() {
  const inProcess: number[] = [];
  for (let i = 0; i < samples + warmup; i++) {
    const arrived = nextArrival();
    const start = performance.now();
    const call = model.openai.chat.completions.create({ model: 'bench', messages: [{ role: 'user', content: `turn ${i}` }] });
    const at = await arrived;
    await call;
    if (i >= warmup) inProcess.push(at - start);
  }
  arborRequests.clear();

  const sessionId = `bench-signal-${Date.now()}`;
  const started = await env.client.workflow.start(sessionWorkflowType, {
    taskQueue: 'bench-arbor',
    workflowId: sessionId,
    args: [{ title: 'bench' }],
  });
  const session = new SessionHandle(sessionId, env.client);
  const bare = await env.client.workflow.start('bareTurnWorkflow', { taskQueue: 'bench-bare', workflowId: `bare-signal-${Date.now()}` });
  const arbor: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < samples + warmup; i++) {
    let arrived = nextArrival();
    let start = performance.now();
    await session.send(`turn ${i}`);
    let at = await arrived;
    if (i >= warmup) arbor.push(at - start);
    await waitFor(async () => {
      const snapshot = await session.snapshot();
      return snapshot.turn === i + 1 && snapshot.status === 'idle';
    }, 5);
    await sleep(10);

    arrived = nextArrival();
    start = performance.now();
    // As the SDK's send: an update that returns once the message is queued.
    await bare.executeUpdate(bareMessageUpdate, { args: [`turn ${i}`] });
    at = await arrived;
    if (i >= warmup) floor.push(at - start);
    await waitFor(async () => (await bare.query(bareTurnsQuery)) === i + 1, 5);
    await sleep(10);
  }
  const trouble = {
    arbor: await historyTrouble(env.client, sessionId, started.firstExecutionRunId),
    floor: await historyTrouble(env.client, bare.workflowId, bare.firstExecutionRunId),
  };
  await bare.terminate();
  await env.client.workflow.getHandle(sessionId).terminate();
  return { arbor, floor, inProcess, trouble };
}
await server.teardown();
await model.fake.stop();

const arbor = percentiles(measured.arbor);
const floor = percentiles(measured.floor);
console.table({ 'Arbor session': arbor, 'bare workflow floor': floor, 'in process, no Temporal': percentiles(measured.inProcess) });
const ratios = { p50: ratio(arbor.p50, floor.p50), p95: ratio(arbor.p95, floor.p95), p99: ratio(arbor.p99, floor.p99) };
const tail = ratio(arbor.p99, arbor.p50);
console.log(
  `B3 signal to model call, ratio to the floor: p50 ${ratios.p50}x, p95 ${ratios.p95}x, p99 ${ratios.p99}x (target 1.2x: ${verdict(ratios.p50 <= 1.2)})`,
);
console.log(`B3 Arbor p99 / p50: ${tail} (target at most 3: ${verdict(tail <= 3)}); floor p99 / p50: ${ratio(floor.p99, floor.p50)}`);
console.log(`history trouble (retries, failed or timed-out tasks): ${JSON.stringify(measured.trouble)}`);
const file = await writeResults(resultName('signal-latency', args.server, args.searchAttributes), {
  benchmark: 'B3 signal to model call',
  server: args.server,
  search_attributes: args.searchAttributes,
  samples,
  warmup,
  load_average_at_start: loadAtStart,
  signal_to_model_call_ms: { arbor, floor, in_process: percentiles(measured.inProcess) },
  ratio_to_floor: ratios,
  arbor_p99_over_p50: tail,
  floor_p99_over_p50: ratio(floor.p99, floor.p50),
  history: measured.trouble,
});
console.log(`written ${file}`);
