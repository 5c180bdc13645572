import type { Sinks } from '@temporalio/workflow';
import type { CarriedState, ForkOrigin, SessionInput } from './session.js';
import type { WorkMode } from './work-modes.js';
import type { ProfileName } from './tools/profiles/names.js';

export type { ForkOrigin };

/**
 * The memo key a fork's replay puts in the start event of the history it replays (never in a real session): which
 * turn end the replay is to hand back. Live workers never bundle the probe, so nothing reads it there.
 */
export const forkProbeMemoKey = '__arborForkProbe';

/** A turn end to hand back: at a transcript position, or every one at or before a time (workflow time, ms). */
export type ForkProbeTarget = { position: number } | { not_after_ms: number };

/** A session's state at a turn end, as a continue-as-new would carry it, with what the next run's input repeats. */
export interface ForkPointState {
  carried: CarriedState;
  work_mode: WorkMode;
  profile: ProfileName;
}

/** What the replay tells the forking client, through a sink called during replay. */
export interface ForkProbeSinks extends Sinks {
  arborForkProbe: {
    /** The run's input, as the workflow received it. */
    started(input: SessionInput): void;
    /** A turn has ended: the transcript's length then, the workflow time, and the state if it is the one asked for. */
    turnEnded(point: { total: number; at_ms: number; state?: ForkPointState }): void;
  };
}
