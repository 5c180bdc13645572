/**
 * A burst (issue 23, item 1): two sessions of one owner answer with 130 saveMemory calls each in one round, while an
 * unrelated probe session is timed; every save's result is checked against the store.
 * Load (issue 23, item 5): 200 sessions of 20 owners at once on one dev server and one worker, each doing three turns
 * with memory writes, task-board operations and a sub-agent that writes to both too. An unrelated probe session (its
 * own owner, one model call per turn) is timed before, during and after the load; its quiet turns before are the
 * floor of the same work. When the load has ended, every tool result is checked against the final state: a save
 * reported saved is in its owner's store with its content and one refused is not; a task reported created is on its
 * tree's board with its subject. Failed workflow tasks are counted over every history.
 *   npx tsx bench/load.ts [sessions, default 200] [owners, default 20] [probe turns before and after, default 30]
 */
import { ArborClient } from '../src/client.js';
import { UnansweredQueryError } from '../src/client/access/query-failures.js';
import type { SessionHandle } from '../src/client/session-handle.js';
import type { TranscriptEntry } from '../src/shared/session.js';
import type { FakeReply, RecordedRequest } from '../test/support/fake-openai.js';
import {
  benchArgs,
  createArborBenchWorker,
  firstUserText,
  historyTrouble,
  historyWaiter,
  runHistories,
  loadAverage,
  quietRuntime,
  resultName,
  sleep,
  startDevServer,
  startFakeModel,
  writeResults,
} from './harness.js';
import { percentiles, ratio } from './stats.js';

quietRuntime();
const args = benchArgs();
const sessionCount = args.sizes[0] ?? 200;
const ownerCount = args.sizes[1] ?? 20;
const quietTurns = args.sizes[2] ?? 30;
const loadAtStart = loadAverage();
// First the burst of issue 23: two sessions of one owner answering with this many saveMemory calls in one round each.
const burstSaves = 130;

/* ---------- what the model asks for ---------- */

const calls = (...list: [string, unknown][]): FakeReply => ({
  toolCalls: list.map(([name, value]) => ({ name, arguments: JSON.stringify(value) })),
});
// Each session's saves (and its sub-agent's) carry the session's tag, so the check can list them all a page at a time.
const save = (content: string, session: string): [string, unknown] => ['saveMemory', { content, tags: [`s${session}`] }];
const task = (subject: string): [string, unknown] => ['TaskCreate', { subject }];

/** The replies of a session, by the number of model replies its request already holds (its step). */
function scriptFor(instruction: string): FakeReply[] {
  const child = /^child of (\d+)$/.exec(instruction);
  if (child)
    return [
      calls(save(`child ${child[1]} fact`, child[1]!), task(`child ${child[1]} task a`), task(`child ${child[1]} task b`)),
      { content: 'Child done.' },
    ];
  const burst = /^burst (\d+)$/.exec(instruction);
  if (burst) {
    const saves = Array.from({ length: burstSaves }, (_, j): [string, unknown] => [
      'saveMemory',
      { content: `burst ${burst[1]} fact ${j}`, tags: [`b${burst[1]}-${j % 2}`] },
    ]);
    return [calls(...saves), { content: 'Burst saved.' }];
  }
  const root = /^load (\d+)$/.exec(instruction);
  if (!root) return [{ content: 'Probe answered.' }];
  const i = root[1];
  return [
    // Turn 1: five saves, two tasks and a sub-agent in one round.
    calls(...[0, 1, 2, 3, 4].map((j) => save(`session ${i} fact ${j}`, i!)), task(`session ${i} task 1`), task(`session ${i} task 2`), [
      'subAgent',
      { title: `Helper ${i}`, instruction: `child of ${i}` },
    ]),
    { content: 'Turn 1 done.' },
  ];
}

/** Later turns of a load session (`again <turn>`): three saves and a task, then an answer. */
function laterTurn(i: string, turn: string): FakeReply[] {
  return [
    calls(
      save(`session ${i} turn ${turn} fact a`, i),
      save(`session ${i} turn ${turn} fact b`, i),
      save(`session ${i} turn ${turn} fact c`, i),
      task(`session ${i} turn ${turn} task`),
    ),
    { content: `Turn ${turn} done.` },
  ];
}

function route(request: RecordedRequest): FakeReply {
  const messages = request.body.messages;
  const lastUser = [...messages].reverse().find((message) => message.role === 'user')?.content ?? '';
  const lastUserIndex = messages.map((message) => message.role).lastIndexOf('user');
  const sinceLastUser = messages.slice(lastUserIndex + 1);
  const step = sinceLastUser.filter((message) => message.role === 'assistant').length;
  const later = /^again (\d+)$/.exec(lastUser);
  const root = /^load (\d+)$/.exec(firstUserText(request));
  if (later && root) return laterTurn(root[1]!, later[1]!)[step] ?? { content: 'ok' };
  if (lastUser !== firstUserText(request)) return { content: 'Noted.' }; // sub-agent notices and anything else
  return scriptFor(firstUserText(request))[step] ?? { content: 'ok' };
}

/**
 * Checks tool results against the final state: a save reported saved is in `memories` with its content and one refused
 * is not; a task reported created is on `board` with its subject and one refused is not.
 */
function toolResultChecker() {
  const check = {
    saves_saved: 0,
    saves_refused: 0,
    tasks_created: 0,
    tasks_refused: 0,
    mismatches: [] as string[],
    other_errors: [] as string[],
  };
  const checkTranscript = (transcript: TranscriptEntry[], memories: Map<string, string>, board: Map<string, string>) => {
    const results = new Map(transcript.filter((entry) => entry.role === 'tool').map((entry) => [entry.tool_call_id!, entry]));
    for (const call of transcript.flatMap((entry) => entry.tool_calls ?? [])) {
      const result = results.get(call.id);
      const argsOf = JSON.parse(call.arguments) as { content?: string; subject?: string };
      if (!result) {
        check.mismatches.push(`${call.name} ${call.arguments}: no result`);
        continue;
      }
      if (call.name === 'saveMemory') {
        if (result.is_error) {
          check.saves_refused += 1;
          if ([...memories.values()].includes(argsOf.content!))
            check.mismatches.push(`refused but stored: ${argsOf.content} (${result.content})`);
        } else {
          check.saves_saved += 1;
          const { memory_id } = JSON.parse(result.content) as { memory_id: string };
          if (memories.get(memory_id) !== argsOf.content) check.mismatches.push(`saved but not stored: ${argsOf.content} as ${memory_id}`);
        }
      } else if (call.name === 'TaskCreate') {
        if (result.is_error) {
          check.tasks_refused += 1;
          if ([...board.values()].includes(argsOf.subject!))
            check.mismatches.push(`refused but on the board: ${argsOf.subject} (${result.content})`);
        } else {
          check.tasks_created += 1;
          const created = (JSON.parse(result.content) as { task: { id: string } }).task;
          if (board.get(created.id) !== argsOf.subject)
            check.mismatches.push(`created but not on the board: ${argsOf.subject} as ${created.id}`);
        }
      } else if (result.is_error && check.other_errors.length < 5) check.other_errors.push(`${call.name}: ${result.content.slice(0, 200)}`);
    }
  };
  return { check, checkTranscript };
}

/* ---------- the run ---------- */

const server = await startDevServer(args.server);
const model = await startFakeModel(route);
const taskQueue = 'bench-load';
const worker = await createArborBenchWorker(server.env, model, taskQueue);

const results = await worker.runUntil(async () => {
  const arbor = new ArborClient(server.env.client, taskQueue);
  // Every waiter sleeps on the history's long poll and asks the session once each time its history grows, as the
  // CLI's `send --wait` follows a session; polling queries from 200 clients would load the worker more than the sessions.
  const idle = (session: SessionHandle, messageId?: string) =>
    historyWaiter(
      server.env.client,
      session.id,
    )(async () => {
      // A query the loaded worker did not answer in time is asked again: the history may not grow again to wake us.
      for (;;) {
        try {
          const snapshot = await session.snapshot();
          if (snapshot.status === 'running' || snapshot.status === 'waiting_for_user') return false;
          return messageId === undefined ? snapshot.queued_messages === 0 : (await session.messageState(messageId)) === 'handled';
        } catch (error) {
          if (!(error instanceof UnansweredQueryError)) throw error;
        }
      }
    });
  const probe = await arbor.startSession({ instruction: 'probe', owner: 'probe-owner' });
  // The probe's turns are one model call each: 'ping' is not its instruction, so the model answers 'Noted.'.
  await idle(probe);
  const probeTurn = async () => {
    const started = performance.now();
    await idle(probe, await probe.send('ping'));
    return performance.now() - started;
  };
  const before: number[] = [];
  for (let k = 0; k < quietTurns; k++) before.push(await probeTurn());

  // The burst: two sessions of one owner, 130 saves each in one round, the probe timed while they run.
  const burstStarted = performance.now();
  const burstSessions = await Promise.all([0, 1].map((k) => arbor.startSession({ instruction: `burst ${k}`, owner: 'burst-owner' })));
  let burstDone = false;
  const duringBurst: number[] = [];
  const probingBurst = (async () => {
    while (!burstDone) duringBurst.push(await probeTurn());
  })();
  await Promise.all(burstSessions.map((session) => idle(session)));
  const burstMs = performance.now() - burstStarted;
  burstDone = true;
  await probingBurst;
  const burstStore = new Map<string, string>();
  for (const tag of ['b0-0', 'b0-1', 'b1-0', 'b1-1']) {
    for (const memory of (await arbor.memories('burst-owner').list({ tag, limit: 100 })).memories)
      burstStore.set(memory.memory_id, memory.content);
  }
  const burstChecker = toolResultChecker();
  for (const session of burstSessions) burstChecker.checkTranscript(await session.transcript(), burstStore, new Map());
  const burstCheck = burstChecker.check;
  const betweenBursts: number[] = [];
  for (let k = 0; k < quietTurns; k++) betweenBursts.push(await probeTurn());

  // The load: every session starts at once, then each sends its next turn as soon as the last is done.
  const loadStarted = performance.now();
  let loadDone = false;
  const during: number[] = [];
  const probing = (async () => {
    while (!loadDone) during.push(await probeTurn());
  })();
  const sessions: SessionHandle[] = [];
  await Promise.all(
    Array.from({ length: sessionCount }, async (_, i) => {
      const session = await arbor.startSession({ instruction: `load ${i}`, owner: `load-owner-${i % ownerCount}` });
      sessions[i] = session;
      await idle(session);
      for (const turn of [2, 3]) await idle(session, await session.send(`again ${turn}`));
    }),
  );
  // Sub-agents finish on their own; their parents take the notice in a turn of their own.
  for (let tries = 0; ; tries++) {
    const snapshots = await Promise.all(sessions.map((session) => session.snapshot()));
    if (
      snapshots.every(
        (snapshot) => snapshot.children.length === 1 && snapshot.children[0]!.status !== 'running' && snapshot.status === 'idle',
      )
    )
      break;
    if (tries > 600) throw new Error('the load did not settle');
    await sleep(500);
  }
  const loadMs = performance.now() - loadStarted;
  loadDone = true;
  await probing;
  const after: number[] = [];
  for (let k = 0; k < quietTurns; k++) after.push(await probeTurn());

  // Every tool result against the final state.
  const { check, checkTranscript } = toolResultChecker();
  const stores = new Map<string, Map<string, string>>();
  for (let i = 0; i < sessionCount; i++) {
    const owner = `load-owner-${i % ownerCount}`;
    const memories = stores.get(owner) ?? new Map<string, string>();
    stores.set(owner, memories);
    for (const memory of (await arbor.memories(owner).list({ tag: `s${i}`, limit: 100 })).memories)
      memories.set(memory.memory_id, memory.content);
  }
  let troubles = { workflow_task_failures: 0, activity_failures: 0, activity_retries: 0, messages: [] as string[] };
  const failuresByActivity: Record<string, number> = {};
  const retriesByActivity: Record<string, number> = {};
  const addTrouble = async (workflowId: string) => {
    const handle = server.env.client.workflow.getHandle(workflowId);
    const firstRunId = (await handle.describe()).raw.workflowExecutionInfo?.firstRunId ?? '';
    const trouble = await historyTrouble(server.env.client, workflowId, firstRunId);
    for await (const events of runHistories(server.env.client, workflowId, firstRunId)) {
      const typeOf = new Map(
        events.map((event) => [String(event.eventId), event.activityTaskScheduledEventAttributes?.activityType?.name ?? '']),
      );
      for (const event of events) {
        const ended = event.activityTaskFailedEventAttributes ?? event.activityTaskTimedOutEventAttributes;
        if (ended) {
          const type = typeOf.get(String(ended.scheduledEventId)) ?? '?';
          failuresByActivity[type] = (failuresByActivity[type] ?? 0) + 1;
        }
        const started = event.activityTaskStartedEventAttributes;
        if (started && (started.attempt ?? 1) > 1) {
          const type = typeOf.get(String(started.scheduledEventId)) ?? '?';
          retriesByActivity[type] = (retriesByActivity[type] ?? 0) + 1;
        }
      }
    }
    troubles = {
      workflow_task_failures: troubles.workflow_task_failures + trouble.workflow_task_failures,
      activity_failures: troubles.activity_failures + trouble.activity_failures,
      activity_retries: troubles.activity_retries + trouble.activity_retries,
      messages: [...troubles.messages, ...trouble.workflow_task_failure_messages].slice(0, 5),
    };
  };
  for (const [i, session] of sessions.entries()) {
    const owner = `load-owner-${i % ownerCount}`;
    const snapshot = await session.snapshot();
    const board = new Map(snapshot.tasks.map((entry) => [entry.id, entry.subject]));
    checkTranscript(await session.transcript(), stores.get(owner)!, board);
    const childId = snapshot.children[0]!.sub_session_id;
    checkTranscript(await arbor.session(childId).transcript(), stores.get(owner)!, board);
    await addTrouble(session.id);
    await addTrouble(childId);
  }
  for (let o = 0; o < ownerCount; o++) await addTrouble(`arbor-memory-load-owner-${o}`);

  return {
    burst: {
      saves: 2 * burstSaves,
      ms: Math.round(burstMs),
      stored: burstStore.size,
      saved: burstCheck.saves_saved,
      refused: burstCheck.saves_refused,
      mismatches: burstCheck.mismatches.length,
      first_mismatches: burstCheck.mismatches.slice(0, 5),
      probe_turn_ms: { before: percentiles(before), during: percentiles(duringBurst), after: percentiles(betweenBursts) },
      probe_during_vs_before: {
        p50: ratio(percentiles(duringBurst).p50, percentiles(before).p50),
        p99: ratio(percentiles(duringBurst).p99, percentiles(before).p99),
      },
    },
    sessions: sessionCount,
    owners: ownerCount,
    load_ms: Math.round(loadMs),
    probe_turn_ms: { before: percentiles(betweenBursts), during: percentiles(during), after: percentiles(after) },
    probe_during_vs_before: {
      p50: ratio(percentiles(during).p50, percentiles(betweenBursts).p50),
      p99: ratio(percentiles(during).p99, percentiles(betweenBursts).p99),
    },
    tool_results: { ...check, mismatches: check.mismatches.length, first_mismatches: check.mismatches.slice(0, 10) },
    histories: { ...troubles, failures_by_activity: failuresByActivity, retries_by_activity: retriesByActivity },
  };
});

await model.fake.stop();
await server.teardown();
console.table({
  'burst: before': results.burst.probe_turn_ms.before,
  'burst: during': results.burst.probe_turn_ms.during,
  'load: before': results.probe_turn_ms.before,
  'load: during': results.probe_turn_ms.during,
  'load: after': results.probe_turn_ms.after,
});
console.log(JSON.stringify({ ...results, probe_turn_ms: undefined, burst: { ...results.burst, probe_turn_ms: undefined } }, null, 2));
const file = await writeResults(resultName('load', args.server), { load_average_at_start: loadAtStart, ...results });
console.log(`results: ${file}`);
