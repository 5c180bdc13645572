import { DefaultLogger, makeTelemetryFilterString, Runtime, Worker } from '@temporalio/worker';
import { defaultPayloadConverter, type DataConverter } from '@temporalio/common';
import { forkProbeMemoKey, type ForkPointState, type ForkProbeTarget } from '../../shared/fork.js';
import type { SessionInput } from '../../shared/session.js';
import { defaultWorkMode } from '../../shared/work-modes.js';
import { forkBundlePath } from './fork-bundle.js';
import type { SessionRun } from './session-runs.js';

/** A turn end of a run: the transcript's length then, the workflow time, and the state when it was asked for. */
export interface TurnEnd {
  total: number;
  at_ms: number;
  state?: ForkPointState;
}

/** What a replay of one run shows: its input, when it started, and its turn ends (the run's start first, for a continued run). */
export interface ReplayedRun {
  input: SessionInput;
  startedAtMs: number;
  turnEnds: TurnEnd[];
}

/** One run to replay, and the turn ends whose state to hand back. */
export interface ReplayRequest {
  sessionId: string;
  run: SessionRun;
  target: ForkProbeTarget;
}

interface Pending {
  request: ReplayRequest;
  resolve: (replayed: ReplayedRun) => void;
  reject: (error: unknown) => void;
  seen: { input?: SessionInput; startedAtMs: number; turnEnds: TurnEnd[] };
}

/**
 * One replay worker for a whole fork, whose bundle has the fork probe: it replays runs of sessions one after another
 * as they are asked for, and reads their turn ends (with the state of those each `target` names). Kept open between
 * asks (the root's replay decides which sub-agents to read next), so that the bundle is loaded into a V8 context
 * once. The target travels in the start event's memo of a copy of the history: a replay worker takes no other input,
 * and cannot be queried. Nothing is written to Temporal. `close()` ends it.
 */
export class ReplaySession {
  private readonly queue: Pending[] = [];
  private wake: (() => void) | undefined;
  private closed = false;
  private failure: unknown;
  private loop: Promise<void> | undefined;

  constructor(private readonly dataConverter?: DataConverter) {}

  /** Replays these runs (in this order) and gives what each shows. */
  replay(requests: readonly ReplayRequest[]): Promise<ReplayedRun[]> {
    return Promise.all(requests.map((request) => this.one(request)));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    await this.loop;
  }

  private one(request: ReplayRequest): Promise<ReplayedRun> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.closed) return Promise.reject(new Error('The fork replay has been closed.'));
    this.loop ??= this.run();
    return new Promise((resolve, reject) => {
      this.queue.push({ request, resolve, reject, seen: { startedAtMs: 0, turnEnds: [] } });
      this.wake?.();
    });
  }

  private async run(): Promise<void> {
    let current: Pending | undefined;
    const histories = async function* (this: ReplaySession) {
      for (;;) {
        while (this.queue.length === 0 && !this.closed) await new Promise<void>((resolve) => (this.wake = resolve));
        current = this.queue.shift();
        if (!current) return;
        const { sessionId, run, target } = current.request;
        yield { workflowId: sessionId, history: withProbeTarget(run.history, target) };
      }
    }.call(this);
    quietRuntime();
    try {
      const replays = Worker.runReplayHistories(
        {
          workflowBundle: { codePath: await forkBundlePath() },
          replayName: 'arbor-fork',
          ...(this.dataConverter ? { dataConverter: this.dataConverter } : {}),
          sinks: {
            arborForkProbe: {
              started: {
                fn: (info, started: SessionInput) => {
                  if (!current) return;
                  current.seen.input = started;
                  current.seen.startedAtMs = new Date(info.runStartTime).getTime();
                },
                callDuringReplay: true,
              },
              turnEnded: { fn: (_info, point: TurnEnd) => void current?.seen.turnEnds.push(point), callDuringReplay: true },
            },
          },
        },
        histories,
      );
      for await (const result of replays) {
        const done = current;
        if (!done) continue;
        current = undefined;
        const { sessionId, run } = done.request;
        if (result.error) done.reject(new Error(`Session ${sessionId} (run ${run.runId}) did not replay: ${result.error.message}`));
        else if (!done.seen.input)
          done.reject(new Error(`The replay of session ${sessionId} (run ${run.runId}) did not start the session workflow.`));
        else {
          const { input, startedAtMs, turnEnds } = done.seen as Pending['seen'] & { input: SessionInput };
          done.resolve({ input, startedAtMs, turnEnds: [...runStart(input, startedAtMs), ...turnEnds] });
        }
      }
    } catch (error) {
      this.failure = error;
      current?.reject(error);
    }
    // Asked for after the worker stopped (or never replayed): told, not left waiting.
    for (const left of this.queue.splice(0)) left.reject(this.failure ?? new Error('The fork replay has been closed.'));
  }
}

/**
 * A replay worker logs its start and stop at INFO on the process's Temporal runtime: a process that has none yet gets
 * one that logs warnings and errors only (one installed before is left as it is).
 */
function quietRuntime(): void {
  try {
    Runtime.install({
      logger: new DefaultLogger('WARN'),
      telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }), forward: {} } },
    });
  } catch {
    // The process has its runtime already.
  }
}

/** A continued run begins at the turn end its run before ended on: the carried state is that turn end's state. */
function runStart(input: SessionInput, startedAtMs: number): TurnEnd[] {
  const carried = input.carried;
  if (!carried) return [];
  return [
    {
      total: (carried.transcript_start ?? 0) + carried.transcript.length,
      at_ms: startedAtMs,
      state: { carried, work_mode: input.work_mode ?? defaultWorkMode, profile: input.profile ?? 'all' },
    },
  ];
}

function withProbeTarget(history: SessionRun['history'], target: ForkProbeTarget): SessionRun['history'] {
  const [first, ...rest] = history.events ?? [];
  const started = first?.workflowExecutionStartedEventAttributes;
  if (!first || !started) return history;
  const memo = { fields: { ...(started.memo?.fields ?? {}), [forkProbeMemoKey]: defaultPayloadConverter.toPayload(target) } };
  return { ...history, events: [{ ...first, workflowExecutionStartedEventAttributes: { ...started, memo } }, ...rest] };
}
