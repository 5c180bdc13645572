import { patched } from '@temporalio/workflow';

/**
 * Behaviour changes made while sessions were running, and the workflow types that have them built in. Registered
 * session types, oldest first:
 * - `sessionWorkflow` asks Temporal about every change with `patched()`, so its running sessions keep replaying.
 * - `arborSession` has the first eight built in and asks the later ones. Behind `hasBuiltInChanges()` it also does
 *   what no `sessionWorkflow` ever did: its sub-agents are given their environment by their parent, and visibility
 *   shows a turn `running` only once it is long enough to be seen.
 * - `arborSessionV2`, the type new sessions start as, has every change up to its own built in and asks only the later
 *   ones (a patch costs a marker and a `TemporalChangeVersion` upsert in each session that asks it). Behind
 *   `closedStatusLeftToTemporal()` it writes no `completed` or `stopped` status as it closes: Temporal's execution
 *   status says that already.
 * A change made from now on gets a new entry in `LaterChange`, and is asked with `patched()` in every type it applies
 * to, only where it applies (so that sub-agents, say, ask nothing for a change that concerns roots).
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
 */
type LaterChange = 'first-turn-clock-starts-with-session';

export type SessionChange = (typeof arborSessionChanges)[number] | (typeof arborSessionV2Changes)[number] | LaterChange;

/** The session types in the order they were introduced: 0 `sessionWorkflow`, 1 `arborSession`, 2 `arborSessionV2`. */
export type SessionGeneration = 0 | 1 | 2;

const builtInBy: Record<SessionGeneration, ReadonlySet<SessionChange>> = {
  0: new Set(),
  1: new Set(arborSessionChanges),
  2: new Set([...arborSessionChanges, ...arborSessionV2Changes]),
};

// Module state is per workflow: the worker evaluates the workflow bundle's modules for each workflow it runs.
let generation: SessionGeneration = 0;

/** Called first by each session type after `sessionWorkflow`, with its place in the order above. */
export function useBuiltInChanges(typeGeneration: SessionGeneration): void {
  generation = typeGeneration;
}

/** Whether this session's type is `arborSession` or later: no patch markers for the first changes, and what they brought. */
export function hasBuiltInChanges(): boolean {
  return generation >= 1;
}

/**
 * Whether this session leaves a closing `completed` or `stopped` status to Temporal's execution status (Completed,
 * Canceled) instead of writing it to `ArborStatus`, which is a history event and a visibility write per session.
 */
export function closedStatusLeftToTemporal(): boolean {
  return generation >= 2;
}

/** Whether the session takes the changed branch: always where its type has it built in; elsewhere, as Temporal recorded. */
export function hasChange(change: SessionChange): boolean {
  return builtInBy[generation].has(change) || patched(change);
}
