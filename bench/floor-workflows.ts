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
  getExternalWorkflowHandle,
  isCancellation,
  ParentClosePolicy,
  proxyActivities,
  setHandler,
  sleep,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';

export const bareMessageSignal = defineSignal<[string]>('bareMessage');
export const bareTurnsQuery = defineQuery<number>('bareTurns');

const { bareModelCall } = proxyActivities<{ bareModelCall(text: string): Promise<string> }>({ startToCloseTimeout: '1 minute' });

export async function bareTurnWorkflow(): Promise<void> {
  const inbox: string[] = [];
  let turns = 0;
  setHandler(bareMessageSignal, (text) => void inbox.push(text));
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

/* ---------- B4: fan-out to child workflows (bench/fan-out.ts) ---------- */

export const bareFanOutSignal = defineSignal<[{ text: string; children: number }]>('bareFanOut');
export const bareFinishedChildrenQuery = defineQuery<number>('bareFinishedChildren');
/** From a child to its parent as it ends, as a sub-agent tells its parent session. */
export const bareChildFinishedSignal = defineSignal<[string]>('bareChildFinished');

/**
 * A parent that, per message, makes a model call, starts that many child workflows at once, and makes a model call
 * when they have started. Each child ends by signalling the parent, which counts it and, per batch of such signals,
 * makes a model call: the work Arbor does to tell its model that sub-agents have finished.
 */
export async function bareFanOutWorkflow(): Promise<void> {
  const inbox: { text: string; children: number }[] = [];
  let finished = 0;
  let unannounced = 0;
  setHandler(bareFanOutSignal, (message) => void inbox.push(message));
  setHandler(bareFinishedChildrenQuery, () => finished);
  setHandler(bareChildFinishedSignal, () => {
    finished += 1;
    unannounced += 1;
  });
  const { workflowId } = workflowInfo();
  for (let round = 0; ; round++) {
    await condition(() => inbox.length > 0);
    const message = inbox.shift()!;
    const target = finished + message.children;
    await bareModelCall(message.text);
    const handles = await Promise.all(
      Array.from({ length: message.children }, (_, index) =>
        startChild(bareChildWorkflow, {
          workflowId: `${workflowId}.${round}.${index}`,
          args: [`${message.text} child ${index}`],
          parentClosePolicy: ParentClosePolicy.ABANDON,
        }),
      ),
    );
    const ended = Promise.all(handles.map((handle) => handle.result()));
    await bareModelCall(`${message.text}: started ${handles.length}`);
    while (finished < target || unannounced > 0) {
      await condition(() => unannounced > 0);
      const batch = unannounced;
      unannounced = 0;
      await bareModelCall(`${message.text}: ${batch} finished`);
    }
    await ended;
  }
}

/** A child that makes one model call, tells its parent, and ends. */
export async function bareChildWorkflow(text: string): Promise<string> {
  const answer = await bareModelCall(text);
  await tellParent();
  return answer;
}

async function tellParent(): Promise<void> {
  const parent = workflowInfo().parent;
  if (parent) await getExternalWorkflowHandle(parent.workflowId).signal(bareChildFinishedSignal, workflowInfo().workflowId);
}

/* ---------- B5: cancelling a tree of workflows (bench/stop-tree.ts) ---------- */

/**
 * A node of a tree: with `fanout` [a, b, ...] it starts `a` children each given [b, ...]; a leaf sleeps on an
 * hour-long timer. Cancelling it cancels its children and waits for them to end, then tells its parent, before it
 * ends: leaves first, as Arbor stops a tree.
 */
export async function bareTreeWorkflow(fanout: number[]): Promise<void> {
  setHandler(bareChildFinishedSignal, () => undefined);
  const [width, ...below] = fanout;
  if (width === undefined) {
    try {
      await sleep('1 hour');
    } catch (error) {
      if (isCancellation(error)) await CancellationScope.nonCancellable(tellParent);
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
        await tellParent();
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
