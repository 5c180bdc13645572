import { patched } from '@temporalio/workflow';
import { workflowLocal } from './workflow-local.js';

/**
 * Behaviour changes made while sessions were running, and the workflow types that have them built in. Registered
 * session types, oldest first:
 * - `sessionWorkflow` asks Temporal about every change with `patched()`, so its running sessions keep replaying.
 * - `arborSession` has the first eight built in and asks the later ones. Behind `hasBuiltInChanges()` it also does
 *   what no `sessionWorkflow` ever did: its sub-agents are given their environment by their parent, and visibility
 *   shows a turn `running` only once it is long enough to be seen.
 * - `arborSessionV2` has every change up to its own built in and asks only the later ones (a patch costs a marker and
 *   a `TemporalChangeVersion` upsert in each session that asks it). Behind `closedStatusLeftToTemporal()` it writes
 *   no `completed` or `stopped` status as it closes: Temporal's execution status says that already.
 * - `arborSessionV3`, the type new sessions start as, has every change listed here built in (`laterChanges` too), so
 *   it asks Temporal nothing: its runs record no patch marker and write no `TemporalChangeVersion`.
 * A change made from now on gets a new entry in a list asked by every type (`arborSessionV3` included) with
 * `patched()`, only where it applies (so that sub-agents, say, ask nothing for a change that concerns roots).
 * Behind `continuesAsNewAsNewestType()`, runs of the two older types continue as new as `arborSessionV2`, so those
 * types end with their sessions' current runs instead of living as long as their trees.
 */

/*
 * Usage and budgets (issue 27) add commands without a `patched()`, because each is issued only on data no history from
 * before them holds, so a replay of such a history issues none of them either:
 * - a root's `ArborTotalTokens`/`ArborCostUsd` upsert as a turn ends, and a sub-agent's final `treeUsage` signal to its
 *   root: only once a `callModel` (or `fetchWebPage`) result recorded in history carries `usage`, which results from
 *   before were never given;
 * - the allowance request (`treeUsage` with `request_id`, and its timer) and the root's `budgetGrant` answer: only in a
 *   sub-agent started with `draws_from_root`, an input older runs never wrote, and at a root that receives one.
 * A `patched()` would cost every new session a marker and a `TemporalChangeVersion` upsert in the workflow task of its
 * first usage write: two search-attribute writes in one task, which the status rules here exist to avoid.
 */

/*
 * Steer and interrupt (issue 30) add no `patched()` either; each path is taken only on data no earlier history holds:
 * - a steer message (`mode: 'steer'`, a new message field) is taken into the running turn before its next model call;
 * - a turn runs in a cancellation scope of its own, and a sub-agent's child workflow starts in the session's scope,
 *   only in a session started with `interruptible: true` (a new input key, which the SDK now sends): the extra scope
 *   orders the cancellation commands of a stop differently, so sessions without the key keep the scopes they had;
 * - an interrupt (`mode: 'interrupt'`) cancels that scope, and its turn's end (notice, `turn_interrupted`, sub-agent
 *   cancels with `stop_sub_agents`) follows from it.
 *
 * Forks (issue 30) change no command, so they are not listed: the fork probe (`fork-probe.ts`, called as a run starts
 * and at each turn end) acts only in a replay whose history's memo names a fork target, and then only calls a sink;
 * `forked_from` is a new start input that no earlier history holds, read only into the snapshot.
 */

/** Changes `arborSession` was born with. */
const arborSessionChanges = [
  'status-running-shown-from-tool-rounds',
  'turn-takes-bounded-inbox-batch',
  'continue-as-new-at-history-length',
  'tell-parent-when-finished',
  'sub-agent-limit-counts-starting',
  'sub-agents-outlive-continue-as-new',
  'continue-as-new-with-running-sub-agents',
  'wait-ends-on-user-messages-only',
] as const;

/** Changes made after `arborSession` began: asked with `patched()` in the older types, only where they apply. */
const arborSessionV2Changes = ['continue-as-new-with-queued-messages', 'sub-agents-continue-as-new'] as const;

/**
 * Changes made after `arborSessionV2` began: asked with `patched()` in every type where they apply.
 * - `first-turn-clock-starts-with-session`: a new root session's first turn is timed from the session's first
 *   activation, not from the activation where the `prepareSession` local activity resolves. That activation's time is
 *   not the same live and on replay when a query met the first workflow task (live, the workflow task after it; on
 *   replay, the activity's completion), and the two-second `running` rule could then upsert on replay only.
 * - `continue-as-new-as-arborSessionV2`: a `sessionWorkflow` or `arborSession` run continues as new as
 *   `arborSessionV2` (see `continuesAsNewAsNewestType()`).
 * - `host-tools-taken-at-continue-as-new`: a run that continues a session (a carried run) begins with the local
 *   activity `describeHostTools` and takes the host tool catalogue the worker offers then, with a notice when it
 *   differs from the carried one. Asked only in carried runs, as they begin.
 * - `host-tool-approval-asked`: a host tool call that needs approval (`needs_approval` true, or `by_arguments` and the
 *   `hostToolNeedsApproval` local activity says so) asks the user, or is denied by the session's `deny` policy, before
 *   its activity is scheduled; before, every call ran. Asked only as such a call is dispatched in a session whose
 *   policy is not `allow` (which asks nobody, as before).
 * - `status-waiting-for-user-written-alone`: a tool round with an `askUser` call no longer writes `ArborStatus =
 *   running` as it starts, since the call writes `waiting_for_user` in the same workflow task (two upserts, the first
 *   seen by nobody). Asked only as such a round starts in a session that would have written `running` then.
 * - `wait-time-zone-checked-as-schedules-read-it`: `wait` refuses a `timezone` that is not a tz database name spelled
 *   as the database spells it (`timeZoneProblem`), as automations do; before, a zone Intl reads in any case
 *   (`europe/paris`), or any zone next to an `until` with an offset, waited. Asked only where the two differ.
 * - `continue-as-new-waits-for-messages-of-its-task`: a run about to continue as new in a workflow task that a signal
 *   or update came in handles it first (a turn, or an idle wait) and continues as new at its next point, unless the
 *   run is past 1.5 times its event limit or at its byte limit; before, it continued as new there. Asked only in such a task,
 *   and only when the arrival left a message queued (one already handled, or a sub-agent's report, leaves nothing to wait for).
 * - `store-writes-settled-after-failure`: when a memory write's or a sub-agent's task-board operation's activity fails
 *   for good, the activity `settleMemoryWrite` or `settleTaskBoardCall` asks the store whether it was applied (and
 *   keeps it from being applied later if not); before, the model read the activity's failure. Asked only then.
 * - `session-input-checked`: a session whose input the client would refuse (none, not an object, keys no option has,
 *   a limit out of range, a blank instruction) fails at once with an `InvalidSessionInput` failure that says what was
 *   wrong; before, it failed its workflow task for ever or ran with what it could read. Asked only for such an input,
 *   so a valid one records nothing.
 * - `sub-agents-not-given-automation-tools-by-default`: a sub-agent whose parent's `subAgent` call names no tools gets
 *   the parent's tools less the automation tools (`withheldFromSubAgentsByDefault`), as an explicit list in its input;
 *   before, it got all of the parent's. Asked only for such a call in a session that has automation tools.
 * - `sub-agent-model-checked`: a `subAgent` call naming a model other than the session's asks the worker (a local
 *   activity) whether it knows the model, and is refused with the models it knows if not; before, the sub-agent
 *   started and retried a model its endpoint did not serve. Asked only for such a call.
 * - `sub-agent-reports-its-error`: a session that ends failed carries its error in its result and in its report to
 *   its parent; before, the parent read only `failed`. Asked only when a session ends failed with an error.
 * - `status-running-held-for-approvals`: a tool round that would write `ArborStatus = running` as it starts, and has a
 *   host tool call that may ask for approval (policy `ask`, `needs_approval` true or `by_arguments`), writes nothing
 *   then: the call either asks, and writes `waiting_for_user` in that workflow task, or runs, and writes `running` just
 *   before its activity is scheduled. Before, such a round wrote `running` and then `waiting_for_user` in one workflow
 *   task. Asked only as such a round starts in a session that would have written `running` then.
 * - `later-changes-asked-once-at-run-start`: see `askLaterChangesOnce()`.
 */
const laterChanges = [
  'first-turn-clock-starts-with-session',
  'continue-as-new-as-arborSessionV2',
  'host-tools-taken-at-continue-as-new',
  'host-tool-approval-asked',
  'status-waiting-for-user-written-alone',
  'wait-time-zone-checked-as-schedules-read-it',
  'continue-as-new-waits-for-messages-of-its-task',
  'store-writes-settled-after-failure',
  'session-input-checked',
  'sub-agents-not-given-automation-tools-by-default',
  'sub-agent-model-checked',
  'sub-agent-reports-its-error',
  'status-running-held-for-approvals',
] as const;
type LaterChange = (typeof laterChanges)[number];

/**
 * Changes made after `arborSessionV3` began: asked with `patched()` in every type, `arborSessionV3` included, only
 * where they apply (none is built in anywhere).
 * - `cron-held-at-spent-budget`: a cron job firing while the session's budget is spent (its last turn was refused, and
 *   a root's budget is still spent) starts no turn: the first such firing adds one notice saying so, later ones add
 *   nothing, until the budget is raised or frees up. Before, each firing started a turn that ended at once with the
 *   budget's notice. Asked only as such a firing comes.
 * - `tree-budget-reaches-running-sub-agents`: a root given a budget by `setBudget` while its tree had none tells its
 *   running sub-agents (the `drawFromRoot` signal), which then draw from it and tell their own; before, only
 *   sub-agents started later drew from it. Asked only in a root that has running sub-agents as that happens.
 * - `older-entries-summarized`: between turns, after a model call that left messages out to fit the context window,
 *   and as a run continues as new with more transcript than it carries, the session calls the `summarizeConversation`
 *   activity and puts a `summary` entry in its transcript (or a notice when the call failed). Asked only then.
 * - `summary-calls-checked-against-budget`: a summary call is checked against the budget as a model call is (a member
 *   of a budgeted tree may ask its root for an allowance first); at a spent budget none is made, and a notice says the
 *   oldest entries are left out instead. Asked only as a summary is about to be made in a session that has a budget
 *   or draws from its root's.
 * - `interrupt-waits-for-uncancellable-tool-calls`: an interrupt that meets a running call of a host tool whose activity
 *   does not heartbeat (no `heartbeat_timeout_ms`: its worker never learns of a cancellation) waits for the call's
 *   result and keeps it as the tool's answer; before, the call read `Interrupted: ...` at once and its result was
 *   dropped. Asked only then, in the interrupt's activation (see `TurnInterruption.keepThroughInterrupt`).
 */
export const changesAfterV3 = [
  'cron-held-at-spent-budget',
  'tree-budget-reaches-running-sub-agents',
  'older-entries-summarized',
  'summary-calls-checked-against-budget',
  'interrupt-waits-for-uncancellable-tool-calls',
] as const;

export type SessionChange =
  (typeof arborSessionChanges)[number] | (typeof arborSessionV2Changes)[number] | LaterChange | (typeof changesAfterV3)[number];

/**
 * The session types in the order they were introduced: 0 `sessionWorkflow`, 1 `arborSession`, 2 `arborSessionV2`,
 * 3 `arborSessionV3`.
 */
export type SessionGeneration = 0 | 1 | 2 | 3;

const builtInBy: Record<SessionGeneration, ReadonlySet<SessionChange>> = {
  0: new Set(),
  1: new Set(arborSessionChanges),
  2: new Set([...arborSessionChanges, ...arborSessionV2Changes]),
  3: new Set([...arborSessionChanges, ...arborSessionV2Changes, ...laterChanges]),
};

// Per workflow: the worker shares this module among all its workflows (shared-modules.ts), so not a module variable.
const generationOf = workflowLocal<SessionGeneration>('sessionGeneration', 0);

/** Called first by each session type after `sessionWorkflow`, with its place in the order above. */
export function useBuiltInChanges(typeGeneration: SessionGeneration): void {
  generationOf.set(typeGeneration);
}

/** Whether this session's type is `arborSession` or later: no patch markers for the first changes, and what they brought. */
export function hasBuiltInChanges(): boolean {
  return generationOf.get() >= 1;
}

/**
 * Whether this session leaves a closing `completed` or `stopped` status to Temporal's execution status (Completed,
 * Canceled) instead of writing it to `ArborStatus`, which is a history event and a visibility write per session.
 */
export function closedStatusLeftToTemporal(): boolean {
  return generationOf.get() >= 2;
}

/**
 * The changes a run takes together with the one patch `later-changes-asked-once-at-run-start` (see
 * `askLaterChangesOnce()`). Frozen: a change made after it is not in it, and is asked on its own. Left out:
 * `session-input-checked`, asked before it, and `continue-as-new-as-arborSessionV2`, asked at a continue-as-new with
 * `patched()` itself.
 */
const askedOnceAtRunStart: ReadonlySet<SessionChange> = new Set<SessionChange>([
  'first-turn-clock-starts-with-session',
  'host-tools-taken-at-continue-as-new',
  'host-tool-approval-asked',
  'status-waiting-for-user-written-alone',
  'wait-time-zone-checked-as-schedules-read-it',
  'continue-as-new-waits-for-messages-of-its-task',
  'store-writes-settled-after-failure',
  'status-running-held-for-approvals',
]);

// Whether this run took `later-changes-asked-once-at-run-start`: per workflow, like the generation.
const laterChangesTaken = workflowLocal('laterChangesTaken', false);

/**
 * Asks Temporal, once, in a run's first activation, for every change of `askedOnceAtRunStart`, where the run pays for a
 * patch there anyway: a new root session's first run (which asked `first-turn-clock-starts-with-session` there) and a
 * carried run (which asked `host-tools-taken-at-continue-as-new` there). Each `patched()` asked live costs a marker and,
 * from Temporal's core, an `UpsertWorkflowSearchAttributes` of `TemporalChangeVersion` of its own: a command the core
 * adds after the marker, which workflow code cannot add its own attributes to, so it cannot be merged with an
 * `ArborStatus` write. Asked one by one, a change asked in a round that writes a status (`host-tool-approval-asked` and
 * `status-waiting-for-user-written-alone` with `waiting_for_user`, `wait-time-zone-checked-as-schedules-read-it` with
 * `running`) made two search-attribute writes in that workflow task. A run that takes this patch has all of them, and
 * asks none of them again. A run of code from before it replays as recorded: its history has no such marker, so this
 * returns false there, and the changes are asked one by one as before. Call it before any of them is asked.
 */
export function askLaterChangesOnce(): void {
  if (generationOf.get() >= 3) return;
  laterChangesTaken.set(patched('later-changes-asked-once-at-run-start'));
}

/**
 * Whether this session's type is `arborSessionV3` or later: every change above is built in (no patch marker, no
 * `TemporalChangeVersion` upsert, in any of its runs), and a tool round whose calls all finish inside the workflow
 * task writes its `running` only as the turn goes on to a model call (see `statusReporter`).
 */
export function hasV3Changes(): boolean {
  return generationOf.get() >= 3;
}

/** Whether the session takes the changed branch: always where its type has it built in; elsewhere, as Temporal recorded. */
export function hasChange(change: SessionChange): boolean {
  return builtInBy[generationOf.get()].has(change) || (laterChangesTaken.get() && askedOnceAtRunStart.has(change)) || patched(change);
}

/**
 * Whether this run, of `sessionWorkflow` or `arborSession`, continues as new as `arborSessionV2`. Asked only as such a
 * run continues as new. The next run then has every change built in, whatever this run or its session's earlier runs
 * took, and that is safe for each of them because none leaves carried state that a run without it cannot read:
 * - `status-running-shown-from-tool-rounds`, `turn-takes-bounded-inbox-batch`, `continue-as-new-at-history-length`,
 *   `sub-agent-limit-counts-starting`, `wait-ends-on-user-messages-only`, `continue-as-new-with-queued-messages`,
 *   `sub-agents-continue-as-new`, and the two-second `running` rule: choices each run makes afresh, within a turn or
 *   as it ends one, from nothing carried (the rule times turns from `turnStartedAt`, which a turn sets in its own run).
 * - `sub-agents-outlive-continue-as-new`, `continue-as-new-with-running-sub-agents`: a run continues as new only once
 *   `canContinueAsNew()` holds, so every sub-agent still running then was started to outlive the run (ABANDON,
 *   `outlives_run`) and tells the session's next run when it ends, as it does for a run of its own type. The signal
 *   and the child records do not depend on the types of parent and child.
 * - `tell-parent-when-finished`: a sub-agent that hops tells its parent when it ends; every type handles
 *   `subAgentFinishedSignal`, and a parent that also holds the child's handle (started in its current run, closed
 *   with it) counts whichever report comes first, once. The child's result reaches that handle across continue-as-new.
 * - sub-agents given their environment by their parent: a carried run reads its environment from the carried state,
 *   never from `environment`, and hands its own (the one it runs with) to the sub-agents it starts, which are
 *   `arborSessionV2` too, since a sub-agent takes its parent's type.
 * - `first-turn-clock-starts-with-session`: asked only in a session's first run.
 * - `completed` and `stopped` left to Temporal's execution status: the session is then an `arborSessionV2` in
 *   visibility as well, and closes as one.
 * Sub-agents of the older types still running keep their type until they continue as new themselves.
 */
export function continuesAsNewAsNewestType(): boolean {
  return generationOf.get() < 2 && patched('continue-as-new-as-arborSessionV2');
}
