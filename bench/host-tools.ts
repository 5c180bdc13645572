/**
 * Host tools (issue 21, "Benchmark"):
 * 1. A turn with one host tool call (model call, the `tool:<name>` activity, model call) against the bare floor of
 *    the same work: a bare workflow that on a signal makes a model-call activity, then the same `tool:<name>` activity
 *    (the same implementation, registered on the floor's worker, the same input shape, options and summary) and a
 *    second model-call activity. Turns without tools are interleaved too, for what the call adds. Turns alternate,
 *    Arbor then floor; each is timed as the server recorded it (from the message's signal to the turn's last
 *    completed workflow task) and as the client saw it.
 *    The floor's model calls send the very request the session sent for the same turn (its system prompt, tool
 *    specs and conversation, captured by the fake model), so what is left is Temporal's share and Arbor's workflow
 *    code. With BENCH_FLOOR_REQUEST=short they send one short message (and the one tool's spec) instead.
 * 2. A catalogue of 200 host tools: session start (from starting the workflow with an instruction to the first turn
 *    idle) and turn time, against the same with no host tools; history bytes per turn, what the session records
 *    once (the catalogue in its `prepareSession` marker) and the size of the model request.
 *   npx tsx bench/host-tools.ts [turn samples, default 200] [session starts, default 50] [catalogue turns, default 100]
 */
import type { WorkflowHandle } from '@temporalio/client';
import type OpenAI from 'openai';
import { z } from 'zod';
import { SessionHandle } from '../src/client/session-handle.js';
import { sessionWorkflowType } from '../src/shared/session.js';
import { buildCatalogue } from '../src/tools/catalogue.js';
import { hostToolActivities } from '../src/tools/activities.js';
import { defineHostTool, type HostTool } from '../src/tools/define.js';
import { toolSpecs } from '../src/activities/tool-specs.js';
import { bareHostToolTurnSignal, bareTurnsQuery, type FloorModelCallInput, type FloorModelReply } from './floor-workflows.js';
import {
  benchArgs,
  createArborBenchWorker,
  createFloorWorker,
  historyTrouble,
  historyWaiter,
  lastMessage,
  loadAverage,
  quietRuntime,
  resultName,
  startDevServer,
  startFakeModel,
  turnTimesInHistory,
  writeResults,
} from './harness.js';
import type { RecordedRequest } from '../test/support/fake-openai.js';
import { percentiles, ratio, summary, verdict } from './stats.js';

quietRuntime();
const args = benchArgs();
// With 100, the p99 would be the slowest sample (see B2 in RESULTS.md).
const samples = args.sizes[0] ?? 200;
const starts = args.sizes[1] ?? 50;
const catalogueTurns = args.sizes[2] ?? 100;
const warmup = 5;
const owner = 'bench-host-tools';
const loadAtStart = loadAverage();
// Both the session and the floor continue as new between turns once a run's history has this many events (Arbor's default).
const historyLimit = 5_000;
const floorRequest = process.env.BENCH_FLOOR_REQUEST === 'short' ? 'short' : 'same';

/* ---------- the tools ---------- */

const orders = new Map([['A1', { status: 'shipped', items: 2 }]]);
const orderInput = z.object({
  order_id: z.string().describe('The order id, e.g. A1'),
  include_items: z.boolean().optional().describe('Whether to list the items of the order as well'),
  region: z.enum(['eu', 'us', 'apac']).optional().describe('The region whose order system holds the order'),
  reason: z.string().max(200).optional().describe('Why the order is looked up, for the audit log'),
});
const lookup =
  (name: string) =>
  ({ order_id }: z.infer<typeof orderInput>) => ({ tool: name, order_id, ...(orders.get(order_id) ?? {}) });
const lookupOrder = defineHostTool({
  name: 'lookup_order',
  description: 'Look up an order by its id: its status and number of items.',
  input: orderInput,
  run: lookup('lookup_order'),
});
// 200 tools of about 1 KB each in the catalogue: a description of a few sentences and a schema of four fields.
const manyTools: HostTool[] = Array.from({ length: 200 }, (_, index) => {
  const name = `team_tool_${String(index).padStart(3, '0')}`;
  return defineHostTool({
    name,
    description:
      `Internal tool number ${index} of the operations team: looks up an order in system ${index} by its id and returns ` +
      'its status, the number of items and, when asked, the items themselves. Use it when the user names an order of ' +
      `that system; do not use it for refunds or address changes, which have tools of their own (see tool ${(index + 1) % 200}).`,
    input: orderInput,
    run: lookup(name),
  });
});
const catalogueOne = buildCatalogue([lookupOrder]);
const catalogueMany = buildCatalogue(manyTools);
const catalogueBytes = (catalogue: typeof catalogueOne) => Buffer.byteLength(JSON.stringify(catalogue.tools));
const hostToolCalledIn200 = manyTools[123]!.name;

/* ---------- the fake model ---------- */

type RequestBody = RecordedRequest['body'];
// While a session's turn runs, the requests it sends are kept, for the floor's model calls of the same turn.
let capture: RequestBody[] | undefined;
const captured = new Map<number, RequestBody[]>();
// Set for a turn whose model request sizes are wanted (warm-up turns only: measuring costs a JSON.stringify).
let requestSizes: number[] | undefined;

const model = await startFakeModel((request) => {
  capture?.push(request.body);
  requestSizes?.push(Buffer.byteLength(JSON.stringify(request.body)));
  // A user message "call <tool> ..." gets one call of that tool when the request offers tools; anything else, an answer.
  const last = lastMessage(request);
  const match = last?.role === 'user' ? /^call (\S+)/.exec(last.content ?? '') : null;
  if (request.body.tools && match) return { toolCalls: [{ name: match[1]!, arguments: JSON.stringify({ order_id: 'A1' }) }] };
  return { content: 'ok' };
});

const shortToolSpecs = toolSpecs([lookupOrder.name], catalogueOne);
/** The floor's model call: the session's request for the same step of the same turn, or one short message. */
async function floorModelCall(input: FloorModelCallInput): Promise<FloorModelReply> {
  let body: RequestBody | undefined;
  if (floorRequest === 'same') {
    body = captured.get(input.iteration)?.[input.step];
    if (!body) throw new Error(`no session request was captured for turn ${input.iteration}, step ${input.step}`);
  } else {
    const results = input.tool_results ? `\n${JSON.stringify(input.tool_results)}` : '';
    body = {
      model: 'bench',
      messages: [{ role: 'user', content: `${input.text}${results}` }],
      ...(input.step === 0 ? { tools: shortToolSpecs as RequestBody['tools'] } : {}),
    };
  }
  const reply = await model.openai.chat.completions.create(body as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming);
  const message = reply.choices[0]?.message;
  return {
    content: message?.content ?? null,
    tool_calls: (message?.tool_calls ?? []).flatMap((call) =>
      call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [],
    ),
  };
}

/* ---------- the workers ---------- */

const server = await startDevServer(args.server);
const { env } = server;
const queues = { one: 'bench-arbor-host-1', many: 'bench-arbor-host-200', none: 'bench-arbor-host-0', floor: 'bench-floor-host' };
const options = { searchAttributes: args.searchAttributes };
const arborOne = await createArborBenchWorker(env, model, queues.one, { ...options, tools: [lookupOrder] });
// All 200 specs in every request, as H2 measured them before ToolSearch (bench:tool-search measures deferring them).
const arborMany = await createArborBenchWorker(env, model, queues.many, {
  ...options,
  tools: manyTools,
  activities: { toolSearch: false },
});
const arborNone = await createArborBenchWorker(env, model, queues.none, options);
// The floor's worker runs the same `tool:lookup_order` activity implementation as Arbor's worker.
const floorWorker = await createFloorWorker(env, queues.floor, {
  floorModelCall,
  ...hostToolActivities([lookupOrder], queues.floor).get(queues.floor),
});

const historyBytes = async (workflowId: string) =>
  Number((await env.client.workflow.getHandle(workflowId).describe()).raw.workflowExecutionInfo?.historySizeBytes ?? 0);

async function startIdleSession(taskQueue: string, title: string) {
  const workflowId = `bench-host-${title}-${Date.now()}`;
  const started = await env.client.workflow.start(sessionWorkflowType, {
    taskQueue,
    workflowId,
    args: [{ title, owner, history_limit: historyLimit }],
  });
  return { workflowId, firstRunId: started.firstExecutionRunId, session: new SessionHandle(workflowId, env.client), turns: 0 };
}
type BenchSession = Awaited<ReturnType<typeof startIdleSession>>;

/** Sends `text` and waits (on the history long poll) until the session has finished that turn. */
async function sessionTurn(session: BenchSession, text: string, waitUntil: ReturnType<typeof historyWaiter>): Promise<number> {
  const start = performance.now();
  await session.session.send(text);
  const turn = ++session.turns;
  await waitUntil(async () => {
    const snapshot = await session.session.snapshot();
    return snapshot.turn === turn && snapshot.status === 'idle';
  });
  return performance.now() - start;
}

/* ---------- 1. one host tool call against the floor ---------- */

const turnKinds = [
  { label: 'no tools', text: 'plain' },
  { label: 'host tool x1', text: `call ${lookupOrder.name}` },
] as const;

async function measureTurn() {
  const arbor = await startIdleSession(queues.one, 'one-tool');
  const bare = await env.client.workflow.start('bareHostToolWorkflow', {
    taskQueue: queues.floor,
    workflowId: `bare-host-${Date.now()}`,
    args: [{ tool: catalogueOne.tools[0]!, owner, historyLimit }],
  });
  const arborTurnEnd = historyWaiter(env.client, arbor.workflowId);
  const floorTurnEnd = historyWaiter(env.client, bare.workflowId);
  const client = { arbor: turnKinds.map(() => [] as number[]), floor: turnKinds.map(() => [] as number[]) };
  const bytes = { arbor: turnKinds.map(() => [] as number[]), floor: turnKinds.map(() => [] as number[]) };
  const sizes: Record<string, number[]> = {};
  let key = 0;
  let floorTurns = 0;
  let arborBytes = await historyBytes(arbor.workflowId);
  let floorBytes = await historyBytes(bare.workflowId);
  for (let i = 0; i < samples + warmup; i++) {
    for (const [index, kind] of turnKinds.entries()) {
      const text = `${kind.text} #${i}`;
      const iteration = ++key;
      capture = [];
      if (i === 0) requestSizes = [];
      const arborMs = await sessionTurn(arbor, text, arborTurnEnd);
      captured.set(iteration, capture);
      capture = undefined;
      if (i === 0) sizes[kind.label] = requestSizes!;
      requestSizes = undefined;

      const start = performance.now();
      await bare.signal(bareHostToolTurnSignal, { text, iteration });
      const floorTurn = ++floorTurns;
      await floorTurnEnd(async () => (await bare.query(bareTurnsQuery)) === floorTurn);
      const floorMs = performance.now() - start;
      captured.delete(iteration);

      const arborNow = await historyBytes(arbor.workflowId);
      const floorNow = await historyBytes(bare.workflowId);
      if (i >= warmup) {
        client.arbor[index]!.push(arborMs);
        client.floor[index]!.push(floorMs);
        // A turn that continued as new ends in a new run, whose history is short: its bytes are left out.
        if (arborNow >= arborBytes) bytes.arbor[index]!.push(arborNow - arborBytes);
        if (floorNow >= floorBytes) bytes.floor[index]!.push(floorNow - floorBytes);
      }
      arborBytes = arborNow;
      floorBytes = floorNow;
    }
  }
  const continuedAsNew = { arbor: 0, floor: 0 };
  const byKind = (turns: { ms: number; continuedAsNew: boolean }[], system: 'arbor' | 'floor') => {
    const out = turnKinds.map(() => [] as number[]);
    turns.forEach((turn, index) => {
      if (Math.floor(index / turnKinds.length) < warmup) return;
      out[index % turnKinds.length]!.push(turn.ms);
      if (turn.continuedAsNew) continuedAsNew[system] += 1;
    });
    return out;
  };
  const history = {
    arbor: byKind(await turnTimesInHistory(env.client, arbor.workflowId, arbor.firstRunId, 'userMessage'), 'arbor'),
    floor: byKind(await turnTimesInHistory(env.client, bare.workflowId, bare.firstExecutionRunId, 'bareHostToolTurn'), 'floor'),
  };
  const transcript = await arbor.session.transcript();
  const toolResults = transcript.filter((entry) => entry.role === 'tool');
  const trouble = {
    arbor: await historyTrouble(env.client, arbor.workflowId, arbor.firstRunId),
    floor: await historyTrouble(env.client, bare.workflowId, bare.firstExecutionRunId),
  };
  await bare.terminate();
  await env.client.workflow.getHandle(arbor.workflowId).terminate();
  return {
    history,
    client,
    bytes,
    turns_continued_as_new: continuedAsNew,
    request_bytes_first_turn: sizes,
    tool_results: toolResults.length,
    tool_errors: toolResults.filter((entry) => entry.is_error).map((entry) => entry.content.slice(0, 200)),
    trouble,
  };
}

/* ---------- 2. a catalogue of 200 host tools ---------- */

type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];
const eventMs = (event: HistoryEvent) => Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6;
const payloadBytes = (payloads: { data?: Uint8Array | null; metadata?: Record<string, Uint8Array> | null }[] | null | undefined) =>
  (payloads ?? []).reduce(
    (sum, payload) =>
      sum + (payload.data?.length ?? 0) + Object.values(payload.metadata ?? {}).reduce((total, value) => total + value.length, 0),
    0,
  );

async function measureCatalogue() {
  const configs = [
    { label: '200 host tools', queue: queues.many },
    { label: 'no host tools', queue: queues.none },
  ];
  // Session start: from starting the workflow with an instruction (as ArborClient.startSession does) to the first turn idle.
  const startClient = configs.map(() => [] as number[]);
  const startHistory = configs.map(() => [] as number[]);
  const firstTurnBytes = configs.map(() => [] as number[]);
  const recorded = configs.map(() => ({ marker_bytes: 0, start_input_bytes: 0 }));
  const startedIds: string[] = [];
  for (let i = 0; i < starts + warmup; i++) {
    for (const [index, config] of configs.entries()) {
      const workflowId = `bench-host-start-${index}-${i}-${Date.now()}`;
      const instruction = `start #${i}`;
      const start = performance.now();
      const started = await env.client.workflow.start(sessionWorkflowType, {
        taskQueue: config.queue,
        workflowId,
        args: [{ instruction, title: 'bench start', owner }],
        staticSummary: 'bench start',
      });
      const session = new SessionHandle(workflowId, env.client);
      await historyWaiter(
        env.client,
        workflowId,
      )(async () => {
        const snapshot = await session.snapshot();
        return snapshot.turn === 1 && snapshot.status === 'idle';
      });
      const ms = performance.now() - start;
      startedIds.push(workflowId);
      const events = (await env.client.workflow.getHandle(workflowId, started.firstExecutionRunId).fetchHistory()).events ?? [];
      const lastTask = events.filter((event) => event.workflowTaskCompletedEventAttributes).at(-1);
      if (i >= warmup) {
        startClient[index]!.push(ms);
        startHistory[index]!.push(eventMs(lastTask!) - eventMs(events[0]!));
        firstTurnBytes[index]!.push(await historyBytes(workflowId));
      }
      if (i === 0) {
        // The prepareSession local activity's marker holds the session's environment, the catalogue with it.
        const marker = events.find((event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity');
        recorded[index] = {
          marker_bytes: payloadBytes(Object.values(marker?.markerRecordedEventAttributes?.details ?? {}).flatMap((p) => p.payloads ?? [])),
          start_input_bytes: payloadBytes(events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads),
        };
      }
    }
  }

  // Turns: in a session of each catalogue, a turn without tools, and in the 200-tool session and a one-tool session a
  // turn with one host tool call, interleaved.
  const many = await startIdleSession(queues.many, 'many-tools');
  const none = await startIdleSession(queues.none, 'no-tools');
  const one = await startIdleSession(queues.one, 'one-tool-b');
  const plan = [
    { label: '200 host tools, no tool call', session: many, text: 'plain' },
    { label: 'no host tools, no tool call', session: none, text: 'plain' },
    { label: '200 host tools, one host tool call', session: many, text: `call ${hostToolCalledIn200}` },
    { label: '1 host tool, one host tool call', session: one, text: `call ${lookupOrder.name}` },
  ];
  const waiters = new Map([many, none, one].map((session) => [session, historyWaiter(env.client, session.workflowId)]));
  const client = plan.map(() => [] as number[]);
  const bytes = plan.map(() => [] as number[]);
  const sizes: Record<string, number[]> = {};
  for (let i = 0; i < catalogueTurns + warmup; i++) {
    for (const [index, step] of plan.entries()) {
      const before = await historyBytes(step.session.workflowId);
      if (i === 0) requestSizes = [];
      const ms = await sessionTurn(step.session, `${step.text} #${i}`, waiters.get(step.session)!);
      if (i === 0) sizes[step.label] = requestSizes!;
      requestSizes = undefined;
      if (i >= warmup) {
        client[index]!.push(ms);
        const after = await historyBytes(step.session.workflowId);
        if (after >= before) bytes[index]!.push(after - before);
      }
    }
  }
  // The server's record of each turn; the sessions' turns are in plan order.
  const turnsOf = async (session: BenchSession) =>
    (await turnTimesInHistory(env.client, session.workflowId, session.firstRunId, 'userMessage')).map((turn) => turn.ms);
  const historyTurns = new Map<BenchSession, number[]>();
  for (const session of [many, none, one]) historyTurns.set(session, await turnsOf(session));
  const history = plan.map((step) => {
    const perIteration = plan.filter((other) => other.session === step.session);
    const position = perIteration.indexOf(step);
    return historyTurns
      .get(step.session)!
      .filter((_, turn) => turn % perIteration.length === position && Math.floor(turn / perIteration.length) >= warmup);
  });
  const transcript = await many.session.transcript();
  const toolErrors = transcript.filter((entry) => entry.role === 'tool' && entry.is_error).map((entry) => entry.content.slice(0, 200));
  const trouble = Object.fromEntries(
    await Promise.all(
      [many, none, one].map(async (session) => [
        session.workflowId,
        await historyTrouble(env.client, session.workflowId, session.firstRunId),
      ]),
    ),
  );
  for (const id of [...startedIds, many.workflowId, none.workflowId, one.workflowId]) await env.client.workflow.getHandle(id).terminate();
  return {
    starts: configs.map((config, index) => ({
      label: config.label,
      client_ms: summary(startClient[index]!),
      history_ms: summary(startHistory[index]!),
      history_bytes_after_first_turn: summary(firstTurnBytes[index]!),
      ...recorded[index]!,
    })),
    turns: plan.map((step, index) => ({
      label: step.label,
      history_ms: percentiles(history[index]!),
      client_ms: percentiles(client[index]!),
      history_bytes_per_turn: summary(bytes[index]!),
      request_bytes_first_turn: sizes[step.label],
    })),
    tool_errors: toolErrors,
    trouble,
  };
}

const measured = await arborOne.runUntil(() =>
  arborMany.runUntil(() =>
    arborNone.runUntil(() => floorWorker.runUntil(async () => ({ turn: await measureTurn(), catalogue: await measureCatalogue() }))),
  ),
);
await server.teardown();
await model.fake.stop();

/* ---------- report ---------- */

const { turn, catalogue } = measured;
const extra = (times: number[][]) => times[1]!.map((value, i) => value - times[0]![i]!);
const turnFigures = turnKinds.map((kind, index) => ({
  label: kind.label,
  history_ms: { arbor: percentiles(turn.history.arbor[index]!), floor: percentiles(turn.history.floor[index]!) },
  client_ms: { arbor: percentiles(turn.client.arbor[index]!), floor: percentiles(turn.client.floor[index]!) },
  history_bytes_per_turn: { arbor: summary(turn.bytes.arbor[index]!), floor: summary(turn.bytes.floor[index]!) },
}));
const ratios = turnFigures.map((figure) => ({
  label: figure.label,
  p50: ratio(figure.history_ms.arbor.p50, figure.history_ms.floor.p50),
  p95: ratio(figure.history_ms.arbor.p95, figure.history_ms.floor.p95),
  p99: ratio(figure.history_ms.arbor.p99, figure.history_ms.floor.p99),
  client_p50: ratio(figure.client_ms.arbor.p50, figure.client_ms.floor.p50),
}));
const added = { arbor: percentiles(extra(turn.history.arbor)), floor: percentiles(extra(turn.history.floor)) };
const addedRatio = { p50: ratio(added.arbor.p50, added.floor.p50), p99: ratio(added.arbor.p99, added.floor.p99) };
const hostRatio = ratios[1]!;

const table: Record<string, Record<string, number>> = {};
for (const figure of turnFigures) {
  for (const system of ['arbor', 'floor'] as const) {
    table[`${figure.label}: ${system === 'arbor' ? 'Arbor' : 'floor'}`] = {
      'p50 ms': figure.history_ms[system].p50,
      'p95 ms': figure.history_ms[system].p95,
      'p99 ms': figure.history_ms[system].p99,
      'client p50 ms': figure.client_ms[system].p50,
      'client p99 ms': figure.client_ms[system].p99,
      'bytes/turn': figure.history_bytes_per_turn[system].p50,
    };
  }
}
console.log(
  `1. a turn with one host tool call, ${samples} samples after ${warmup} warm-ups; the floor sends ${floorRequest === 'same' ? "the session's own model requests" : 'one short message'}`,
);
console.table(table);
console.log(
  `host tool turn: ${hostRatio.p50}x the floor at p50 (target 1.10x: ${verdict(hostRatio.p50 <= 1.1)}), ${hostRatio.p95}x at p95, ${hostRatio.p99}x at p99; ` +
    `seen by the client ${hostRatio.client_p50}x at p50. Turn without tools ${ratios[0]!.p50}x at p50.`,
);
console.log(`turns that continued as new (counted): ${JSON.stringify(turn.turns_continued_as_new)}`);
console.log(
  `what the call adds to a turn: Arbor ${added.arbor.p50} ms, floor ${added.floor.p50} ms at p50 (${addedRatio.p50}x; p99 ${addedRatio.p99}x)`,
);
console.log(`model request bytes in the first turn of each kind: ${JSON.stringify(turn.request_bytes_first_turn)}`);

console.log(
  `2. a catalogue of 200 host tools (${catalogueBytes(catalogueMany)} bytes of JSON; one tool: ${catalogueBytes(catalogueOne)}), ${starts} session starts and ${catalogueTurns} turns of each kind`,
);
const startTable: Record<string, Record<string, number>> = {};
for (const figure of catalogue.starts) {
  startTable[`start, ${figure.label}`] = {
    'p50 ms': figure.history_ms.p50,
    'p95 ms': figure.history_ms.p95,
    'max ms': figure.history_ms.max,
    'client p50 ms': figure.client_ms.p50,
    'client p95 ms': figure.client_ms.p95,
    'history bytes': figure.history_bytes_after_first_turn.p50,
    'marker bytes': figure.marker_bytes,
  };
}
for (const figure of catalogue.turns) {
  startTable[`turn, ${figure.label}`] = {
    'p50 ms': figure.history_ms.p50,
    'p95 ms': figure.history_ms.p95,
    'max ms': figure.history_ms.p99,
    'client p50 ms': figure.client_ms.p50,
    'client p95 ms': figure.client_ms.p95,
    'history bytes': figure.history_bytes_per_turn.p50,
    'marker bytes': 0,
  };
}
console.table(startTable);
const [startMany, startNone] = catalogue.starts;
console.log(
  `session start with 200 host tools: ${ratio(startMany!.history_ms.p50, startNone!.history_ms.p50)}x the start without at p50 ` +
    `(client ${ratio(startMany!.client_ms.p50, startNone!.client_ms.p50)}x); recorded once: ${startMany!.marker_bytes} bytes ` +
    `(without: ${startNone!.marker_bytes})`,
);
const turnLabel = (label: string) => catalogue.turns.find((figure) => figure.label === label)!;
console.log(
  `turn without tools, 200 host tools over none: ${ratio(turnLabel('200 host tools, no tool call').history_ms.p50, turnLabel('no host tools, no tool call').history_ms.p50)}x at p50; ` +
    `host tool turn, 200 over 1: ${ratio(turnLabel('200 host tools, one host tool call').history_ms.p50, turnLabel('1 host tool, one host tool call').history_ms.p50)}x at p50`,
);
for (const figure of catalogue.turns)
  console.log(`model request bytes, ${figure.label}: ${JSON.stringify(figure.request_bytes_first_turn)}`);
console.log(
  `history trouble (retries, failed or timed-out tasks): ${JSON.stringify({ turn: turn.trouble, catalogue: catalogue.trouble })}`,
);
const toolErrors = [...turn.tool_errors, ...catalogue.tool_errors];
if (toolErrors.length > 0) console.log(`warning: ${toolErrors.length} tool calls failed, e.g. ${toolErrors[0]}`);
const file = await writeResults(
  `${resultName('host-tools', args.server, args.searchAttributes)}${floorRequest === 'short' ? '.floor-short' : ''}`,
  {
    benchmark: 'host tools (issue 21)',
    server: args.server,
    search_attributes: args.searchAttributes,
    samples,
    warmup,
    floor_request: floorRequest,
    load_average_at_start: loadAtStart,
    turn: {
      kinds: turnFigures,
      ratios,
      added_by_the_call_ms: added,
      added_ratio: addedRatio,
      request_bytes_first_turn: turn.request_bytes_first_turn,
      turns_continued_as_new: turn.turns_continued_as_new,
      tool_results: turn.tool_results,
      tool_errors: turn.tool_errors.length,
      history: turn.trouble,
    },
    catalogue: {
      tools: manyTools.length,
      catalogue_bytes: catalogueBytes(catalogueMany),
      one_tool_catalogue_bytes: catalogueBytes(catalogueOne),
      starts_measured: starts,
      turns_measured: catalogueTurns,
      ...catalogue,
      tool_errors: catalogue.tool_errors.length,
    },
  },
);
console.log(`written ${file}`);
