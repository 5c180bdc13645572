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

/**
 * Replays runs of sessions, one after another in one replay worker whose bundle has the fork probe, and reads their
 * turn ends (with the state of those each `target` names). The target travels in the start event's memo of a copy of
 * the history: a replay worker takes no other input, and cannot be queried. Nothing is written to Temporal.
 */
export async function replayRuns(requests: readonly ReplayRequest[], dataConverter?: DataConverter): Promise<ReplayedRun[]> {
  const seen: { input?: SessionInput; startedAtMs: number; turnEnds: TurnEnd[] }[] = [];
  let current: (typeof seen)[number] | undefined;
  async function* histories() {
    for (const { sessionId, run, target } of requests) {
      current = { startedAtMs: 0, turnEnds: [] };
      seen.push(current);
      yield { workflowId: sessionId, history: withProbeTarget(run.history, target) };
    }
  }
  quietRuntime();
  const replays = Worker.runReplayHistories(
    {
      workflowBundle: { codePath: await forkBundlePath() },
      replayName: 'arbor-fork',
      ...(dataConverter ? { dataConverter } : {}),
      sinks: {
        arborForkProbe: {
          started: {
            fn: (info, started: SessionInput) => {
              if (!current) return;
              current.input = started;
              current.startedAtMs = new Date(info.runStartTime).getTime();
            },
            callDuringReplay: true,
          },
          turnEnded: { fn: (_info, point: TurnEnd) => void current?.turnEnds.push(point), callDuringReplay: true },
        },
      },
    },
    histories(),
  );
  let index = 0;
  for await (const result of replays) {
    const request = requests[index++]!;
    if (result.error) throw new Error(`Session ${request.sessionId} (run ${request.run.runId}) did not replay: ${result.error.message}`);
  }
  return seen.map((replayed, at) => {
    const { sessionId, run } = requests[at]!;
    const input = replayed.input;
    if (!input) throw new Error(`The replay of session ${sessionId} (run ${run.runId}) did not start the session workflow.`);
    return { input, startedAtMs: replayed.startedAtMs, turnEnds: [...runStart(input, replayed.startedAtMs), ...replayed.turnEnds] };
  });
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
