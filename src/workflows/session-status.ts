import { upsertSearchAttributes } from '@temporalio/workflow';
import type { SearchAttributePair } from '@temporalio/common';
import type { SessionStatus, ToolCall } from '../shared/session.js';
import { statusKey } from '../shared/search-attributes.js';
import { findTool } from '../shared/tools/registry.js';
import { findHostTool } from './deployment-settings.js';
import { closedStatusLeftToTemporal, hasBuiltInChanges, hasChange, hasV3Changes } from './session-changes.js';
import { finishesInTask } from './tools/in-task-tools.js';
import type { SessionState } from './session-state.js';

export interface StatusReporter {
  /** Sets the session's status (queries and events see it at once) and shows it in visibility where it is worth a history event. */
  report(status: SessionStatus): void;
  /**
   * Called in the run's first activation, before a local activity, when a turn is queued: that turn is timed from
   * now. Workflow time read as a local activity resolves can differ between a live run and its replay.
   */
  startFirstTurnClock(): void;
  /** When the turn about to begin started: now, or for a first turn timed early, the session's first activation. */
  nextTurnStart(): number;
  /** A turn starts (at `nextTurnStart()`): the session is running. */
  beginTurn(startedAt: number): void;
  /** The turn runs a round of tools, so it may take a while: visibility may show it running. */
  toolRoundStarted(calls: readonly ToolCall[]): void;
  /**
   * A host tool call of the round that might have asked for approval was let run without asking anyone (its activity
   * is scheduled next): a `running` the round held back for it is written now.
   */
  callProceeds(): void;
  /** The turn goes on to another model call: a `running` held back for a round that finished in its task is written now. */
  modelCallStarts(): void;
  /**
   * A turn has ended with `status`: reported as `report` does, and `attributes` (a root's usage) written in the same
   * upsert as the status where one is written then, else alone; nothing when there are none.
   */
  reportTurnEnd(status: SessionStatus, attributes: SearchAttributePair[]): void;
}

/** Closing statuses that Temporal's execution status shows as they are: Completed, and Canceled for a stop. */
const shownByTemporal: ReadonlySet<SessionStatus> = new Set<SessionStatus>(['completed', 'stopped']);

/** arborSession: how long a turn runs before visibility shows it `running` (a shorter state is stale before a list shows it). */
const runningShownAfterMs = 2_000;

/**
 * The session status and the `ArborStatus` search attribute that shows it in visibility (list filters, the Web UI).
 * Each upsert is a history event and a visibility write, so visibility shows `running` only for turns long enough
 * to be seen there: a turn that is a single model call stays `idle`; in an arborSession, so does a turn whose tool
 * rounds start within its first two seconds, unless a call may wait long (a sub-agent, a timer, a person). In a
 * sessionWorkflow (newer runs), every turn that runs tools shows `running`. In an arborSessionV3, a round whose calls
 * all finish in its own workflow task writes `running` only as the turn goes on to its next model call. An arborSessionV2 that closes as
 * `completed` or `stopped` leaves that to Temporal's execution status (Completed, Canceled); `failed` is written, since
 * Temporal records such a session as Completed. Queries and the event stream always see the live status. Create it at
 * the start of the workflow function.
 */
export function statusReporter(state: SessionState): StatusReporter {
  let shown: SessionStatus = state.status;
  let firstTurnStartedAt: number | undefined;
  // A round's `running`, held back until its host tool calls that may ask for approval have asked or been let run.
  let runningHeld = false;
  // Asked once, in the run's first activation: asked later (right after the prepareSession local activity resolves),
  // a replay can reach the call before Core has seen the marker, and the run fails as non-deterministic.
  const runningShownFromToolRounds = hasChange('status-running-shown-from-tool-rounds');

  // Written with the next status write of the turn's end (see reportTurnEnd).
  let withStatus: SearchAttributePair[] = [];
  const show = (status: SessionStatus) => {
    if (!state.settings.searchAttributes || shown === status) return;
    upsertSearchAttributes([{ key: statusKey, value: status }, ...withStatus]);
    withStatus = [];
    shown = status;
  };

  const report = (status: SessionStatus) => {
    runningHeld = false;
    if (state.status !== status) state.setStatus(status);
    if (status === 'running' && runningShownFromToolRounds && shown === 'idle') return;
    if (closedStatusLeftToTemporal() && shownByTemporal.has(status)) return;
    show(status);
  };

  // The turn began in this run (beginTurn), so state.turnStartedAt is set.
  const turnRunFor = () => Date.now() - Date.parse(state.turnStartedAt!);
  const worthShowing = (calls: readonly ToolCall[]) =>
    !hasBuiltInChanges() || turnRunFor() >= runningShownAfterMs || calls.some((call) => findTool(call.name)?.waits === true);
  // A call that may ask a person before it runs: its question writes `waiting_for_user` in the round's own workflow task.
  const mayAskApproval = (calls: readonly ToolCall[]) =>
    state.approvalPolicy === 'ask' &&
    calls.some((call) => {
      const tool = findTool(call.name) ? undefined : findHostTool(state.settings, call.name);
      return tool !== undefined && tool.needs_approval !== false;
    });

  const writeHeldRunning = () => {
    if (!runningHeld) return;
    runningHeld = false;
    if (state.status === 'running') show('running');
  };
  // A call of a tool nobody serves is refused at once, in the workflow task.
  const finishesInTaskOrRefused = (call: ToolCall) =>
    finishesInTask(call.name) || (findTool(call.name) === undefined && findHostTool(state.settings, call.name) === undefined);

  return {
    report,
    startFirstTurnClock() {
      firstTurnStartedAt = Date.now();
    },
    nextTurnStart() {
      return firstTurnStartedAt ?? Date.now();
    },
    beginTurn(startedAt) {
      firstTurnStartedAt = undefined;
      state.turnStartedAt = new Date(startedAt).toISOString();
      report('running');
    },
    toolRoundStarted(calls) {
      runningHeld = false;
      if (state.status !== 'running' || shown === 'running' || !worthShowing(calls)) return;
      // askUser reports waiting_for_user as it is dispatched, in this same workflow task: `running` written first would
      // be a second write that nobody sees. (A refused askUser leaves `idle` shown; the next round may show `running`.)
      if (calls.some((call) => call.name === 'askUser') && hasChange('status-waiting-for-user-written-alone')) return;
      // Likewise a call that may ask for approval; one that runs without asking writes `running` (callProceeds).
      if (mayAskApproval(calls) && hasChange('status-running-held-for-approvals')) {
        runningHeld = true;
        return;
      }
      // A round that finishes in its own workflow task is seen running only if the turn goes on: a turn it ends would
      // write `running` and `idle` in one task.
      if (hasV3Changes() && calls.every(finishesInTaskOrRefused)) {
        runningHeld = true;
        return;
      }
      show('running');
    },
    callProceeds: writeHeldRunning,
    modelCallStarts() {
      // Older types never held `running` to this point; they keep writing as their histories recorded.
      if (hasV3Changes()) writeHeldRunning();
    },
    reportTurnEnd(status, attributes) {
      withStatus = state.settings.searchAttributes ? attributes : [];
      report(status);
      if (withStatus.length > 0) upsertSearchAttributes(withStatus);
      withStatus = [];
    },
  };
}
