import type { SessionState } from './session-state.js';

/**
 * Where a fork reads a session's state: every turn end calls `forkPointReached`. Only the replayer a fork runs bundles
 * the interceptor that sets the probe (fork-probe-interceptor.ts); in a worker it stays unset, so a turn end does
 * nothing more, issues no command and needs no patch.
 */
type ForkProbe = (state: SessionState) => void;

let probe: ForkProbe | undefined;

export function setForkProbe(next: ForkProbe | undefined): void {
  probe = next;
}

export function forkPointReached(state: SessionState): void {
  probe?.(state);
}
