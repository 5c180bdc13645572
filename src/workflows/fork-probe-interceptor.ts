import { proxySinks, workflowInfo, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { forkProbeMemoKey, type ForkPointState, type ForkProbeSinks, type ForkProbeTarget } from '../shared/fork.js';
import type { SessionInput } from '../shared/session.js';
import { setForkProbe } from './fork-probe.js';

const { arborForkProbe } = proxySinks<ForkProbeSinks>();

/**
 * Bundled only into the replayer of `session.fork()`: reads which turn end the fork asks for from the replayed
 * history's start memo, and hands the run's input and that turn end's state out through the `arborForkProbe` sink
 * (called during replay). Worker.runReplayHistory cannot be queried, so the state leaves the sandbox this way.
 */
export const interceptors: WorkflowInterceptorsFactory = () => {
  let handedBack = false;
  setForkProbe((state) => {
    // Read here, not when the interceptors are made: the memo is decoded only as the workflow initializes.
    const target = workflowInfo().memo?.[forkProbeMemoKey] as ForkProbeTarget | undefined;
    if (target === undefined) return;
    const total = state.transcript.total();
    const atMs = Date.now();
    const wanted = 'position' in target ? total === target.position && !handedBack : atMs <= target.not_after_ms;
    let point: ForkPointState | undefined;
    if (wanted) {
      handedBack = true;
      // A copy: the state's arrays live on and change after this activation, before the sink is called.
      point = JSON.parse(JSON.stringify({ carried: state.carry(), work_mode: state.workMode, profile: state.profile })) as ForkPointState;
    }
    arborForkProbe.turnEnded({ total, at_ms: atMs, ...(point ? { state: point } : {}) });
  });
  return {
    inbound: [
      {
        execute: (input, next) => {
          arborForkProbe.started(JSON.parse(JSON.stringify(input.args[0])) as SessionInput);
          return next(input);
        },
      },
    ],
  };
};
