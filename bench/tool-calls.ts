/**
 * B2 of issue 9: what tool calls add to a turn, and whether independent calls in one round run concurrently.
 * A turn with k calls in one round is one model call, k tool activities at once and a second model call. Two tools:
 *   - searchMemory (k = 1, 4): a cheap activity, one query of the owner's memory workflow: the cost of a call;
 *   - webFetch of a loopback page that answers after 50 ms (k = 1, 4, 16): a call that waits, so a round of k calls
 *     takes about as long as a round of one only if the calls run concurrently.
 * The floor is a bare workflow doing the same per turn: a signal, a model-call activity, the same tool activity k
 * times at once, a model-call activity, and it continues as new at the same history length as the session (5,000
 * events). Turns of every kind are interleaved, Arbor then floor. A turn is timed as the
 * server recorded it (from the message's signal event to the turn's last completed workflow task), and as the client
 * saw it (from sending to a query showing the turn done; the client asks again each time the history grows).
 * With BENCH_FLOOR_CONVERSATION=1, the floor's model calls also carry a system prompt, the run's conversation and every
 * tool spec, as a session's do: what is left is then Temporal's share and Arbor's workflow code.
 *   npx tsx bench/tool-calls.ts [samples, default 300] [--sqlite] [--no-search-attributes]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryActivities } from '../src/activities/memory.js';
import { createWebActivities } from '../src/activities/web.js';
import { MemoryHandle } from '../src/client/memory-handle.js';
import { SessionHandle } from '../src/client/session-handle.js';
import { sessionWorkflowType } from '../src/shared/session.js';
import { parseAllowList } from '../src/web/fetch/address-policy.js';
import { bareToolTurnSignal, bareTurnsQuery, type BareToolTurn } from './floor-workflows.js';
import {
  bareModelActivities,
  benchArgs,
  conversationalModelActivities,
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
  type TurnInHistory,
  writeResults,
} from './harness.js';
import { percentiles, ratio, verdict } from './stats.js';

quietRuntime();
const args = benchArgs();
// A p99 needs a few hundred: with 60, it is the slowest sample.
const samples = args.size ?? 300;
const warmup = 5;
const owner = 'bench-tools';
const pageDelayMs = 50;
// Both continue as new between turns once a run's history has this many events (Arbor's default).
const historyLimit = 5_000;
const loadAtStart = loadAverage();

type Tool = BareToolTurn['tool'];
interface Kind {
  label: string;
  tool: Tool | 'none';
  calls: number;
}
const kinds: Kind[] = [
  { label: 'no tools', tool: 'none', calls: 0 },
  { label: 'searchMemory x1', tool: 'searchMemory', calls: 1 },
  { label: 'searchMemory x4', tool: 'searchMemory', calls: 4 },
  { label: 'webFetch x1', tool: 'webFetch', calls: 1 },
  { label: 'webFetch x4', tool: 'webFetch', calls: 4 },
  { label: 'webFetch x16', tool: 'webFetch', calls: 16 },
];

// A page server on loopback: plain text after 50 ms. Each call asks for a new URL, so webFetch's cache never answers.
const pages = createServer((request, response) => {
  setTimeout(() => response.writeHead(200, { 'content-type': 'text/plain' }).end(`Page ${request.url}: the answer is 42.`), pageDelayMs);
});
await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
const pageBase = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
let pageCounter = 0;
const callArgs = (tool: Tool): Record<string, unknown> =>
  tool === 'searchMemory'
    ? { query: 'coffee deploy', limit: 5 }
    : { url: `${pageBase}/page?n=${++pageCounter}`, prompt: 'What is the answer?' };

const model = await startFakeModel((request) => {
  // Arbor's requests carry tool specs: a user message "<tool> <k> ..." gets k calls of the tool; anything else, an answer.
  const last = lastMessage(request);
  const match = last?.role === 'user' ? /^(searchMemory|webFetch) (\d+)/.exec(last.content ?? '') : null;
  if (request.body.tools && match) {
    const tool = match[1] as Tool;
    return { toolCalls: Array.from({ length: Number(match[2]) }, () => ({ name: tool, arguments: JSON.stringify(callArgs(tool)) })) };
  }
  return { content: 'ok' };
});
const server = await startDevServer(args.server);
const { env } = server;
const fetchAllow = parseAllowList('127.0.0.1');
const arborWorker = await createArborBenchWorker(env, model, 'bench-arbor', {
  activities: { fetchAllow, webFetch: {} },
  searchAttributes: args.searchAttributes,
});
// BENCH_FLOOR_CONVERSATION=1: the floor's model calls carry a conversation and tool specs as a session's do.
const floorSendsConversation = process.env.BENCH_FLOOR_CONVERSATION === '1';
const floorWorker = await createFloorWorker(env, 'bench-bare', {
  ...(floorSendsConversation ? conversationalModelActivities(model) : bareModelActivities(model)),
  ...createMemoryActivities(env.client),
  ...createWebActivities({ search: { engines: [] }, fetchAllow, fetch: {} }),
});

const measured = await arborWorker.runUntil(() => floorWorker.runUntil(measure));
async function measure() {
  // The owner's memory workflow, with a few memories, so each search is a real one.
  const memories = new MemoryHandle(owner, env.client, 'bench-arbor');
  for (const text of ['coffee at nine', 'deploy on fridays is forbidden', 'tea for the team', 'coffee beans from Kenya'])
    await memories.save(text);

  const sessionId = `bench-tools-${Date.now()}`;
  const started = await env.client.workflow.start(sessionWorkflowType, {
    taskQueue: 'bench-arbor',
    workflowId: sessionId,
    args: [{ title: 'bench', owner, history_limit: historyLimit }],
  });
  const session = new SessionHandle(sessionId, env.client);
  const bare = await env.client.workflow.start('bareToolTurnWorkflow', {
    taskQueue: 'bench-bare',
    workflowId: `bare-tools-${Date.now()}`,
    args: [{ historyLimit }],
  });

  const arborTurnEnd = historyWaiter(env.client, sessionId);
  const floorTurnEnd = historyWaiter(env.client, bare.workflowId);
  const arbor = kinds.map(() => [] as number[]);
  const floor = kinds.map(() => [] as number[]);
  let arborTurns = 0;
  let floorTurns = 0;
  for (let i = 0; i < samples + warmup; i++) {
    for (const [index, kind] of kinds.entries()) {
      const text = `${kind.tool} ${kind.calls} #${i}`;
      let start = performance.now();
      await session.send(text);
      const turn = ++arborTurns;
      await arborTurnEnd(async () => {
        const snapshot = await session.snapshot();
        return snapshot.turn === turn && snapshot.status === 'idle';
      });
      if (i >= warmup) arbor[index]!.push(performance.now() - start);

      const calls = kind.tool === 'none' ? [] : Array.from({ length: kind.calls }, () => callArgs(kind.tool as Tool));
      start = performance.now();
      await bare.signal(bareToolTurnSignal, { text, tool: kind.tool === 'none' ? 'searchMemory' : kind.tool, calls, owner });
      const bareTurn = ++floorTurns;
      await floorTurnEnd(async () => (await bare.query(bareTurnsQuery)) === bareTurn);
      if (i >= warmup) floor[index]!.push(performance.now() - start);
    }
  }
  const transcript = await session.transcript();
  const toolCalls = transcript.filter((entry) => entry.role === 'tool');
  const toolErrors = toolCalls.filter((entry) => entry.is_error).map((entry) => entry.content.slice(0, 200));
  const trouble = {
    arbor: await historyTrouble(env.client, sessionId, started.firstExecutionRunId),
    floor: await historyTrouble(env.client, bare.workflowId, bare.firstExecutionRunId),
  };
  // The same turns as the server recorded them: from the message's signal to the turn's last workflow task.
  const byKind = (turns: TurnInHistory[]) => {
    const out = kinds.map(() => [] as TurnInHistory[]);
    turns.forEach((turn, index) => {
      if (Math.floor(index / kinds.length) >= warmup) out[index % kinds.length]!.push(turn);
    });
    return out;
  };
  const arborHistory = byKind(await turnTimesInHistory(env.client, sessionId, started.firstExecutionRunId, 'userMessage'));
  const floorHistory = byKind(await turnTimesInHistory(env.client, bare.workflowId, bare.firstExecutionRunId, 'bareToolTurn'));
  await bare.terminate();
  await env.client.workflow.getHandle(sessionId).terminate();
  return {
    client: { arbor, floor },
    history: { arbor: arborHistory, floor: floorHistory },
    toolCalls: toolCalls.length,
    toolErrors,
    trouble,
  };
}
await server.teardown();
await model.fake.stop();
pages.close();

/** Per iteration: the time of a turn of this kind less the time of the turn without tools in the same iteration. */
const extra = (times: number[][], index: number) => times[index]!.map((value, i) => value - times[0]![i]!);

function kindFigures(arbor: number[][], floor: number[][]) {
  return kinds.map((kind, index) => {
    const turn = { arbor: percentiles(arbor[index]!), floor: percentiles(floor[index]!) };
    const added = index === 0 ? undefined : { arbor: percentiles(extra(arbor, index)), floor: percentiles(extra(floor, index)) };
    return {
      ...kind,
      turn_ms: turn,
      turn_ratio: { p50: ratio(turn.arbor.p50, turn.floor.p50), p99: ratio(turn.arbor.p99, turn.floor.p99) },
      ...(added
        ? {
            added_to_turn_without_tools_ms: added,
            added_ratio: { p50: ratio(added.arbor.p50, added.floor.p50), p99: ratio(added.arbor.p99, added.floor.p99) },
          }
        : {}),
    };
  });
}
// The target is judged on the server's record of each turn; the client's view (a query after each history change) is
// shown too: it adds the long poll's wake-up and the query's own latency, which now and then stalls for seconds (see
// RESULTS.md).
const msOf = (turns: TurnInHistory[][]) => turns.map((kind) => kind.map((turn) => turn.ms));
const figures = kindFigures(msOf(measured.history.arbor), msOf(measured.history.floor));
// Both continue as new now and then; a turn that did ends with the new run's first workflow task. What tool calls add
// to a turn, over the iterations where neither that turn nor the turn without tools continued as new:
const withoutContinueAsNew = (turns: TurnInHistory[][], index: number) =>
  turns[index]!.flatMap((turn, i) => (turn.continuedAsNew || turns[0]![i]!.continuedAsNew ? [] : [turn.ms - turns[0]![i]!.ms]));
const continueAsNewFigures = kinds.slice(1).map((kind, offset) => {
  const index = offset + 1;
  const added = {
    arbor: percentiles(withoutContinueAsNew(measured.history.arbor, index)),
    floor: percentiles(withoutContinueAsNew(measured.history.floor, index)),
  };
  return {
    label: kind.label,
    turns_continued_as_new: {
      arbor: measured.history.arbor[index]!.filter((turn) => turn.continuedAsNew).length,
      floor: measured.history.floor[index]!.filter((turn) => turn.continuedAsNew).length,
    },
    added_without_continue_as_new_ms: added,
    added_ratio_without_continue_as_new: { p50: ratio(added.arbor.p50, added.floor.p50), p99: ratio(added.arbor.p99, added.floor.p99) },
  };
});
const clientFigures = kindFigures(measured.client.arbor, measured.client.floor);
const table: Record<string, Record<string, number>> = {};
figures.forEach((figure, index) => {
  const client = clientFigures[index]!;
  for (const system of ['arbor', 'floor'] as const) {
    table[`${figure.label}: ${system === 'arbor' ? 'Arbor' : 'floor'}`] = {
      'p50 ms': figure.turn_ms[system].p50,
      'p95 ms': figure.turn_ms[system].p95,
      'p99 ms': figure.turn_ms[system].p99,
      'client p50 ms': client.turn_ms[system].p50,
      'client p99 ms': client.turn_ms[system].p99,
    };
  }
});
console.table(table);
for (const figure of figures.slice(1)) {
  const { added_to_turn_without_tools_ms: added, added_ratio: addedRatio, turn_ratio: turnRatio } = figure;
  const clientRatio = clientFigures.find((client) => client.label === figure.label)!.added_ratio!;
  console.log(
    `B2 ${figure.label}: adds p50 ${added!.arbor.p50} ms to a turn (floor ${added!.floor.p50} ms): ${addedRatio!.p50}x at p50 ` +
      `(target 1.10x: ${verdict(addedRatio!.p50 <= 1.1)}), ${addedRatio!.p99}x at p99 (target 1.25x: ${verdict(addedRatio!.p99 <= 1.25)}); ` +
      `whole turn ${turnRatio.p50}x at p50, ${turnRatio.p99}x at p99; seen by the client ${clientRatio.p50}x at p50, ${clientRatio.p99}x at p99`,
  );
}
// Concurrency: what a round of N webFetch calls adds, over what a round of one adds (1 = all concurrent, N = serial).
const webOne = figures.find((figure) => figure.tool === 'webFetch' && figure.calls === 1)!.added_to_turn_without_tools_ms!;
const concurrency = Object.fromEntries(
  figures
    .filter((figure) => figure.tool === 'webFetch' && figure.calls > 1)
    .map((figure) => [
      `${figure.calls} calls`,
      {
        arbor: ratio(figure.added_to_turn_without_tools_ms!.arbor.p50, webOne.arbor.p50),
        floor: ratio(figure.added_to_turn_without_tools_ms!.floor.p50, webOne.floor.p50),
      },
    ]),
);
console.log(
  `B2 concurrency (a round of N webFetch calls over a round of one, at p50; 1 = concurrent, N = serial): ${JSON.stringify(concurrency)}`,
);
for (const figure of continueAsNewFigures) {
  const { arbor, floor } = figure.turns_continued_as_new;
  console.log(
    `B2 ${figure.label}, turns that continued as new left out (Arbor ${arbor}, floor ${floor}): ` +
      `${figure.added_ratio_without_continue_as_new.p50}x at p50, ${figure.added_ratio_without_continue_as_new.p99}x at p99`,
  );
}
console.log(`history trouble (retries, failed or timed-out tasks): ${JSON.stringify(measured.trouble)}`);
if (measured.toolErrors.length > 0)
  console.log(`warning: ${measured.toolErrors.length} of ${measured.toolCalls} tool calls failed, e.g. ${measured.toolErrors[0]}`);
const file = await writeResults(
  `${resultName('tool-calls', args.server, args.searchAttributes)}${floorSendsConversation ? '.floor-conversation' : ''}`,
  {
    benchmark: 'B2 tool calls',
    server: args.server,
    search_attributes: args.searchAttributes,
    samples,
    warmup,
    page_delay_ms: pageDelayMs,
    load_average_at_start: loadAtStart,
    kinds: figures,
    kinds_without_continue_as_new: continueAsNewFigures,
    kinds_seen_by_client: clientFigures,
    history_limit: historyLimit,
    floor_sends_conversation: floorSendsConversation,
    concurrency_round_of_n_over_round_of_one: concurrency,
    tool_calls: measured.toolCalls,
    tool_errors: measured.toolErrors.length,
    history: measured.trouble,
  },
);
console.log(`written ${file}`);
