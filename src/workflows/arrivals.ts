import { workflowInfo } from '@temporalio/workflow';
import { workflowLocal } from './workflow-local.js';

/**
 * When a signal or an update last reached this run: the history length of the workflow task that delivered it, the
 * same on replay as live. Per workflow (see workflow-local.ts).
 */
const lastArrival = workflowLocal('lastArrival', -1);

/** Called by every signal and update handler of a session. */
export function noteArrival(): void {
  lastArrival.set(workflowInfo().historyLength);
}

/**
 * Whether a signal or an update came in the workflow task now running. After a task that was to continue as new
 * failed with `UnhandledCommand` (a message reached the server while it ran), its retry is such a task: it replays
 * the run from its start, so continuing as new there again races the next message for longer still.
 */
export function arrivedInThisTask(): boolean {
  return lastArrival.get() === workflowInfo().historyLength;
}
