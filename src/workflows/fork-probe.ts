import { proxySinks, workflowInfo } from '@temporalio/workflow';
import { forkProbeMemoKey, type ForkPointState, type ForkProbeSinks, type ForkProbeTarget } from '../shared/fork.js';
import type { SessionInput } from '../shared/session.js';
import type { SessionState } from './session-state.js';
import { workflowLocal } from './workflow-local.js';

/**
 * Where `session.fork()` reads a session's state: it replays the session's history in a local replay worker, which
 * cannot be queried, with `__arborForkProbe` added to the start event's memo of its copy of the history; the run's
 * input and its turn ends then leave the sandbox through the `arborForkProbe` sink, called during replay. No real
 * session has that memo, so there these calls return at once: no command, no history event, no patch.
 */
const { arborForkProbe } = proxySinks<ForkProbeSinks>();

function probeTarget(): ForkProbeTarget | undefined {
  return workflowInfo().memo?.[forkProbeMemoKey] as ForkProbeTarget | undefined;
}

/** Whether this run has handed its state back at the fork point (per workflow: see workflow-local.ts). */
const handedBack = workflowLocal('forkStateHandedBack', false);

/** A run begins: the fork learns the input it repeats. */
export function forkRunStarted(input: SessionInput): void {
  handedBack.set(false);
  if (probeTarget() === undefined) return;
  arborForkProbe.started(JSON.parse(JSON.stringify(input)) as SessionInput);
}

/** A turn has ended: the fork learns the transcript's length and the time, and the state if it is the one asked for. */
export function forkPointReached(state: SessionState): void {
  const target = probeTarget();
  if (target === undefined) return;
  const total = state.transcript.total();
  const atMs = Date.now();
  const wanted = 'position' in target ? total === target.position && !handedBack.get() : atMs <= target.not_after_ms;
  let point: ForkPointState | undefined;
  if (wanted) {
    handedBack.set(true);
    // A copy: the state's arrays live on and change after this activation, before the sink is called.
    point = JSON.parse(JSON.stringify({ carried: state.carry(), work_mode: state.workMode, profile: state.profile })) as ForkPointState;
  }
  arborForkProbe.turnEnded({ total, at_ms: atMs, ...(point ? { state: point } : {}) });
}
