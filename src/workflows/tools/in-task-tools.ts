import type { ToolName } from '../../shared/tools/registry.js';

/**
 * Built-in tools whose handlers finish inside the workflow task that dispatches them: no activity, timer, child
 * workflow or wait. A round of only these (or of calls refused at once) cannot be seen running by anyone unless the
 * turn goes on to another model call. A tool left out of this list is taken to leave the task, as a new tool should be.
 */
const toolsFinishedInTask: ReadonlySet<string> = new Set<ToolName>([
  'todoWrite',
  'planWrite',
  'planGet',
  'stopConversation',
  'notifyUser',
  'createGoal',
  'completeGoal',
  'cancelGoal',
  'createLoop',
  'cancelLoop',
  'completeLoop',
  'listLoops',
  'pauseLoop',
  'resumeLoop',
  'CronCreate',
  'CronList',
  'CronDelete',
]);

export function finishesInTask(toolName: string): boolean {
  return toolsFinishedInTask.has(toolName);
}
