/**
 * The floors of the benchmarks: bare Temporal code doing the same work as Arbor (the same signals, activities and
 * child workflows), nothing more. The turn floor (one signal, one activity) serves B1, B3 and B6.
 */
import {
  CancellationScope,
  ChildWorkflowCancellationType,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  getExternalWorkflowHandle,
  isCancellation,
  ParentClosePolicy,
  proxyActivities,
  setHandler,
  sleep,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { hostToolActivityType, type HostToolActivityInput, type HostToolEntry } from '../src/shared/host-tools.js';

export const bareMessageSignal = defineSignal<[string]>('bareMessage');
/** A message as an update that returns once it is queued, as the SDK sends a session its messages (`sendMessage`). */
export const bareMessageUpdate = defineUpdate<number, [string]>('bareMessageUpdate');
export const bareTurnsQuery = defineQuery<number>('bareTurns');

const { bareModelCall } = proxyActivities<{ bareModelCall(text: string): Promise<string> }>({ startToCloseTimeout: '1 minute' });

export async function bareTurnWorkflow(): Promise<void> {
  const inbox: string[] = [];
  let turns = 0;
  setHandler(bareMessageSignal, (text) => void inbox.push(text));
  setHandler(bareMessageUpdate, (text) => inbox.push(text));
  setHandler(bareTurnsQuery, () => turns);
  for (;;) {
    await condition(() => inbox.length > 0);
    await bareModelCall(inbox.splice(0).join('\n'));
    turns += 1;
  }
}

/* ---------- B2: a turn with tool calls (bench/tool-calls.ts) ---------- */

export interface BareToolTurn {
  text: string;
  /** The tool of the round: a memory search (a query of the owner's memory workflow) or a web page fetch. */
  tool: 'searchMemory' | 'webFetch';
  /** The round's independent calls: one argument object each; none is a turn with one model call. */
  calls: Record<string, unknown>[];
  owner: string;
}

export const bareToolTurnSignal = defineSignal<[BareToolTurn]>('bareToolTurn');

interface FloorToolActivities {
  readMemory(input: { owner: string; request: { op: 'search'; args: Record<string, unknown> } }): Promise<unknown>;
  fetchWebPage(input: Record<string, unknown>): Promise<unknown>;
}
// The same activity options as Arbor's memory and web tools.
const memoryTools = proxyActivities<FloorToolActivities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 5 } });
const webTools = proxyActivities<FloorToolActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', maximumAttempts: 3 },
});

export interface BareToolTurnInput {
  /** Continue as new after a turn once the history is this long, as an Arbor session does. */
  historyLimit: number;
  turns?: number;
  inbox?: BareToolTurn[];
}

/**
 * A turn's work in bare code: a model call, the round's tool activities all at once, and the model call after them.
 * Like a session, it continues as new between turns at the same history length (a long-lived workflow must).
 */
export async function bareToolTurnWorkflow(input: BareToolTurnInput): Promise<void> {
  const inbox: BareToolTurn[] = [...(input.inbox ?? [])];
  let turns = input.turns ?? 0;
  setHandler(bareToolTurnSignal, (turn) => void inbox.push(turn));
  setHandler(bareTurnsQuery, () => turns);
  for (;;) {
    await condition(() => inbox.length > 0);
    const turn = inbox.shift()!;
    await bareModelCall(turn.text);
    if (turn.calls.length > 0) {
      const results = await Promise.all(
        turn.calls.map((args) =>
          turn.tool === 'searchMemory'
            ? memoryTools.readMemory({ owner: turn.owner, request: { op: 'search', args } })
            : webTools.fetchWebPage(args),
        ),
      );
      await bareModelCall(`${turn.text}\n${JSON.stringify(results)}`);
    }
    turns += 1;
    const info = workflowInfo();
    if (inbox.length === 0 && (info.continueAsNewSuggested || info.historyLength >= input.historyLimit)) {
      await continueAsNew<typeof bareToolTurnWorkflow>({ ...input, turns, inbox });
    }
  }
}

/* ---------- A turn with a host tool call (bench/host-tools.ts) ---------- */

export interface BareHostToolTurn {
  text: string;
  /** The benchmark's iteration, so the floor's model call can send the request the session sent for it. */
  iteration: number;
}

export const bareHostToolTurnSignal = defineSignal<[BareHostToolTurn]>('bareHostToolTurn');

/** A model call of the host tool floor: the step of the turn (0 first), and the results of the round before it. */
export interface FloorModelCallInput {
  text: string;
  iteration: number;
  step: number;
  tool_results?: { tool_call_id: string; content: string }[];
}

export interface FloorModelReply {
  content: string | null;
  tool_calls: { id: string; name: string; arguments: string }[];
}

/** Arbor's model-call options. */
const modelCallOptions = {
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
} as const;

const { floorModelCall } = proxyActivities<{ floorModelCall(input: FloorModelCallInput): Promise<FloorModelReply> }>(modelCallOptions);

export interface BareHostToolInput {
  /** The host tool's catalogue entry: its calls are scheduled with its options, as a session schedules them. */
  tool: HostToolEntry;
  owner: string;
  /** Continue as new after a turn once the history is this long, as an Arbor session does. */
  historyLimit: number;
  turns?: number;
  inbox?: BareHostToolTurn[];
}

/**
 * A turn's work in bare code: a model call, the host tool's activity (`tool:<name>`, the same implementation and
 * input a session gives it, with the catalogue entry's options and a summary) for each call the model asked for, and
 * the model call after them.
 */
export async function bareHostToolWorkflow(input: BareHostToolInput): Promise<void> {
  const inbox: BareHostToolTurn[] = [...(input.inbox ?? [])];
  let turns = input.turns ?? 0;
  setHandler(bareHostToolTurnSignal, (turn) => void inbox.push(turn));
  setHandler(bareTurnsQuery, () => turns);
  const { tool } = input;
  const activities = proxyActivities<Record<string, (input: HostToolActivityInput) => Promise<unknown>>>({
    startToCloseTimeout: tool.start_to_close_timeout_ms,
    scheduleToStartTimeout: tool.schedule_to_start_timeout_ms,
    ...(tool.heartbeat_timeout_ms !== undefined ? { heartbeatTimeout: tool.heartbeat_timeout_ms } : {}),
    retry: {
      maximumAttempts: tool.retry.maximum_attempts,
      initialInterval: tool.retry.initial_interval_ms,
      backoffCoefficient: tool.retry.backoff_coefficient,
      maximumInterval: tool.retry.maximum_interval_ms,
    },
  });
  const run = activities[hostToolActivityType(tool.name)]!;
  const { workflowId } = workflowInfo();
  for (;;) {
    await condition(() => inbox.length > 0);
    const turn = inbox.shift()!;
    const reply = await floorModelCall({ text: turn.text, iteration: turn.iteration, step: 0 });
    if (reply.tool_calls.length > 0) {
      const results = await Promise.all(
        reply.tool_calls.map((call, index) =>
          run.executeWithOptions({ summary: `${tool.name}: ${call.arguments}` }, [
            {
              arguments: JSON.parse(call.arguments) as Record<string, unknown>,
              context: {
                session_id: workflowId,
                root_session_id: workflowId,
                owner: input.owner,
                tool_call_id: call.id,
                idempotency_key: `${workflowId}/turn-${turns + 1}/round-1/call-${index + 1}`,
              },
            },
          ]),
        ),
      );
      await floorModelCall({
        text: turn.text,
        iteration: turn.iteration,
        step: 1,
        tool_results: results.map((result, index) => ({
          tool_call_id: reply.tool_calls[index]!.id,
          content: typeof result === 'string' ? result : JSON.stringify(result ?? null),
        })),
      });
    }
    turns += 1;
    const info = workflowInfo();
    if (inbox.length === 0 && (info.continueAsNewSuggested || info.historyLength >= input.historyLimit)) {
      await continueAsNew<typeof bareHostToolWorkflow>({ ...input, turns, inbox });
    }
  }
}

/* ---------- B4: fan-out to child workflows (bench/fan-out.ts) ---------- */

/** A message as an update that returns once it is queued, as the SDK sends a session its messages (`sendMessage`). */
export const bareFanOutUpdate = defineUpdate<number, [BareFanOutMessage]>('bareFanOut');

export interface BareFanOutMessage {
  run: string;
  children: number;
  /**
   * Issue 32's experiment: what Arbor's child start carries beyond the floor's, put on the floor's child starts (the
   * four search attributes a sub-agent starts with, and padding that brings the start input to the size of Arbor's).
   */
  startExtras?: { searchAttributes: Record<string, string[]>; padding: string };
}
export const bareFinishedChildrenQuery = defineQuery<number>('bareFinishedChildren');

/** What a fan-out child tells its parent as it ends: what a sub-agent's `subAgentFinished` signal carries. */
export interface BareChildReport {
  sub_session_id: string;
  status: 'completed' | 'stopped';
  final_message: string;
}
export const bareChildReportSignal = defineSignal<[BareChildReport]>('bareChildReport');

/**
 * A model call of the fan-out floor: which sample it belongs to, who makes it (the root, or child `child`) and the
 * root's step, so that the activity sends the request Arbor's session sent for the same call.
 */
export interface FanOutModelCallInput {
  run: string;
  child?: number;
  step: number;
  padding?: string;
}

const { fanOutModelCall } = proxyActivities<{ fanOutModelCall(input: FanOutModelCallInput): Promise<FloorModelReply> }>(modelCallOptions);

/**
 * A parent that, per message, makes a model call, starts that many child workflows at once, and makes a model call
 * when they have started. Each child ends by telling the parent its final message, which the parent keeps and, per
 * batch of such reports, makes a model call: the work Arbor does to tell its model that sub-agents have finished.
 */
export async function bareFanOutWorkflow(): Promise<void> {
  const inbox: BareFanOutMessage[] = [];
  const reports: BareChildReport[] = [];
  let unannounced = 0;
  setHandler(bareFanOutUpdate, (message) => inbox.push(message));
  setHandler(bareFinishedChildrenQuery, () => reports.length);
  setHandler(bareChildReportSignal, (report) => {
    reports.push(report);
    unannounced += 1;
  });
  const { workflowId } = workflowInfo();
  for (let round = 0; ; round++) {
    await condition(() => inbox.length > 0);
    const { run, children, startExtras } = inbox.shift()!;
    const target = reports.length + children;
    let step = 0;
    await fanOutModelCall({ run, step: step++ });
    const handles = await Promise.all(
      Array.from({ length: children }, (_, index) =>
        startChild(bareReportingChildWorkflow, {
          workflowId: `${workflowId}.${round}.${index}`,
          args: [{ run, child: index, step: 0, ...(startExtras ? { padding: startExtras.padding } : {}) }],
          parentClosePolicy: ParentClosePolicy.ABANDON,
          ...(startExtras ? { searchAttributes: startExtras.searchAttributes } : {}),
        }),
      ),
    );
    const ended = Promise.all(handles.map((handle) => handle.result()));
    await fanOutModelCall({ run, step: step++ });
    while (reports.length < target || unannounced > 0) {
      await condition(() => unannounced > 0);
      unannounced = 0;
      await fanOutModelCall({ run, step: step++ });
    }
    await ended;
  }
}

/** A child that makes one model call, tells its parent its answer, and ends with it. */
export async function bareReportingChildWorkflow({ padding: _padding, ...input }: FanOutModelCallInput): Promise<BareChildReport> {
  const reply = await fanOutModelCall(input);
  const report: BareChildReport = { sub_session_id: workflowInfo().workflowId, status: 'completed', final_message: reply.content ?? '' };
  const parent = workflowInfo().parent;
  if (parent) await getExternalWorkflowHandle(parent.workflowId).signal(bareChildReportSignal, report);
  return report;
}

/** Tells the parent this node has stopped, with a report of the shape a sub-agent sends (its id, status, final message). */
async function tellParent(finalMessage: string | null): Promise<void> {
  const parent = workflowInfo().parent;
  const report: BareChildReport = { sub_session_id: workflowInfo().workflowId, status: 'stopped', final_message: finalMessage ?? '' };
  if (parent) await getExternalWorkflowHandle(parent.workflowId).signal(bareChildReportSignal, report);
}

/* ---------- B5: cancelling a tree of workflows (bench/stop-tree.ts) ---------- */

/**
 * A node of a tree: with `fanout` [a, b, ...] it starts `a` children each given [b, ...]; a leaf sleeps on an
 * hour-long timer. Cancelling it cancels its children and waits for them to end, then tells its parent, before it
 * ends: leaves first, as Arbor stops a tree.
 */
export async function bareTreeWorkflow(fanout: number[]): Promise<void> {
  setHandler(bareChildReportSignal, () => undefined);
  const [width, ...below] = fanout;
  if (width === undefined) {
    try {
      await sleep('1 hour');
    } catch (error) {
      if (isCancellation(error)) await CancellationScope.nonCancellable(() => tellParent(null));
      throw error;
    }
    return;
  }
  const { workflowId } = workflowInfo();
  const handles = await Promise.all(
    Array.from({ length: width }, (_, index) =>
      startChild(bareTreeWorkflow, {
        workflowId: `${workflowId}.${index}`,
        args: [below],
        cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
        parentClosePolicy: ParentClosePolicy.ABANDON,
      }),
    ),
  );
  try {
    await condition(() => false);
  } catch (error) {
    if (isCancellation(error)) {
      await CancellationScope.nonCancellable(async () => {
        await Promise.allSettled(handles.map((handle) => handle.result()));
        await tellParent('spawned');
      });
    }
    throw error;
  }
}

/* ---------- B8: a loop on a durable timer (bench/long-loop.ts) ---------- */

export interface BareLoopInput {
  firings: number;
  intervalSeconds: number;
  /** Firings done by earlier runs. */
  done?: number;
  /** Continue as new once a run has this many history events (Arbor's default limit). */
  historyLimit: number;
}

export const bareFiringsQuery = defineQuery<number>('bareFirings');

/** Sleeps for the interval and makes a model call, `firings` times, continuing as new as Arbor does. */
export async function bareLoopWorkflow(input: BareLoopInput): Promise<number> {
  let done = input.done ?? 0;
  setHandler(bareFiringsQuery, () => done);
  while (done < input.firings) {
    await sleep(input.intervalSeconds * 1000);
    await bareModelCall(`firing ${done + 1}`);
    done += 1;
    const info = workflowInfo();
    if (done < input.firings && (info.continueAsNewSuggested || info.historyLength >= input.historyLimit)) {
      await continueAsNew<typeof bareLoopWorkflow>({ ...input, done });
    }
  }
  return done;
}

/* ---------- interrupt to the new turn's model call (bench/interrupt.ts) ---------- */

export const bareInterruptUpdate = defineUpdate<number, [string]>('bareInterrupt');

// As Arbor's callModel: it heartbeats, so a cancellation reaches it, and it aborts its request then.
const { bareCancellableModelCall } = proxyActivities<{ bareCancellableModelCall(text: string): Promise<string> }>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '15 seconds',
});

/** A turn per message, each a model call in a cancellation scope; `bareInterrupt` cancels the call and queues its text. */
export async function bareInterruptWorkflow(): Promise<void> {
  const inbox: string[] = [];
  let turns = 0;
  let running: CancellationScope | undefined;
  setHandler(bareMessageUpdate, (text) => inbox.push(text));
  setHandler(bareInterruptUpdate, (text) => {
    running?.cancel();
    return inbox.push(text);
  });
  setHandler(bareTurnsQuery, () => turns);
  for (;;) {
    await condition(() => inbox.length > 0);
    const scope = new CancellationScope();
    running = scope;
    try {
      await scope.run(() => bareCancellableModelCall(inbox.splice(0).join('\n')));
    } catch (error) {
      if (!isCancellation(error)) throw error;
    }
    running = undefined;
    turns += 1;
  }
}
