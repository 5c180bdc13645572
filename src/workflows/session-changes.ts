import { patched } from '@temporalio/workflow';

/**
 * Behaviour changes made while `sessionWorkflow` sessions were running. That workflow type asks Temporal about each
 * with `patched()`, so its running sessions keep replaying. `arborSession`, the type new sessions start as, has every
 * change built in and asks nothing: a patch costs a marker and a `TemporalChangeVersion` upsert in each new session.
 * A change made from now on gets a new entry here, asked with `patched()` in both types.
 *
 * `arborSession` also does what no `sessionWorkflow` ever did, behind `hasBuiltInChanges()`: its sub-agents are given
 * their environment by their parent, and visibility shows a turn `running` only once it is long enough to be seen.
 */

/** Changes `arborSession` was born with. A later change is added to `SessionChange` only, and is asked in both types. */
const builtInChanges = [
  'status-running-shown-from-tool-rounds',
  'turn-takes-bounded-inbox-batch',
  'continue-as-new-at-history-length',
  'tell-parent-when-finished',
  'sub-agent-limit-counts-starting',
  'sub-agents-outlive-continue-as-new',
  'continue-as-new-with-running-sub-agents',
  'wait-ends-on-user-messages-only',
] as const;

/** Changes made after `arborSession` began: asked with `patched()` in both types, only where they apply. */
type LaterChange = 'continue-as-new-with-queued-messages' | 'sub-agents-continue-as-new';

export type SessionChange = (typeof builtInChanges)[number] | LaterChange;

const builtIn: ReadonlySet<SessionChange> = new Set<SessionChange>(builtInChanges);

// Module state is per workflow: the worker evaluates the workflow bundle's modules for each workflow it runs.
let changesBuiltIn = false;

/** Called first by a workflow type written after the changes in `builtIn`. */
export function useBuiltInChanges(): void {
  changesBuiltIn = true;
}

/** Whether this session's code is the current type's, with every change of `builtIn` and no patch markers. */
export function hasBuiltInChanges(): boolean {
  return changesBuiltIn;
}

/** Whether the session takes the changed branch: always in the current type; in older types, as Temporal recorded. */
export function hasChange(change: SessionChange): boolean {
  return (changesBuiltIn && builtIn.has(change)) || patched(change);
}
