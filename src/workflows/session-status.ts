import { upsertSearchAttributes } from '@temporalio/workflow';
import { hasChange } from './session-changes.js';
import type { SessionStatus } from '../shared/session.js';
import { statusKey } from '../shared/search-attributes.js';
import type { SessionState } from './session-state.js';

export interface StatusReporter {
  /** Sets the session's status (queries and events see it at once) and shows it in visibility where it is worth a history event. */
  report(status: SessionStatus): void;
  /** A turn starts: the session is running. */
  beginTurn(): void;
  /** The turn runs tools, so it may take a while: visibility shows it running. */
  toolRoundStarted(): void;
}

/**
 * The session status and the `ArborStatus` search attribute that shows it in visibility (list filters, the Web UI).
 * Each upsert is a history event, so newer runs show `running` only once a turn runs tools: a turn that is a single
 * model call stays `idle` in visibility and costs no events beyond the floor of a signal and an activity.
 * Create it at the start of the workflow function.
 */
export function statusReporter(state: SessionState): StatusReporter {
  let shown: SessionStatus = state.status;
  // Asked once, in the run's first activation: asked later (right after the prepareSession local activity resolves),
  // a replay can reach the call before Core has seen the marker, and the run fails as non-deterministic.
  const runningShownFromToolRounds = hasChange('status-running-shown-from-tool-rounds');

  const show = (status: SessionStatus) => {
    if (!state.searchAttributes || shown === status) return;
    upsertSearchAttributes([{ key: statusKey, value: status }]);
    shown = status;
  };

  const report = (status: SessionStatus) => {
    if (state.status !== status) state.setStatus(status);
    if (status === 'running' && runningShownFromToolRounds && shown === 'idle') return;
    show(status);
  };

  return {
    report,
    beginTurn() {
      report('running');
    },
    toolRoundStarted() {
      if (state.status === 'running') show('running');
    },
  };
}
