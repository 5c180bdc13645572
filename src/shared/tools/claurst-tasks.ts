import { z } from 'zod';
import { defineTool } from './define-tool.js';

/** TaskOutput's longest wait, in milliseconds (the seed's range is 0 to 600,000). */
export const maxTaskOutputTimeoutMs = 600_000;
export const defaultTaskOutputTimeoutMs = 30_000;

const taskId = () => z.string().trim().min(1).describe('ID of the task (the agent_id an Agent call with run_in_background: true returned)');

export const taskOutput = defineTool({
  name: 'TaskOutput',
  waits: true,
  description:
    'Read the output of a background agent task, optionally blocking until it completes. retrieval_status is "success" ' +
    '(the task has ended; task holds its fields), "timeout" (block was true and the wait ran out) or "not_ready" ' +
    '(block was false and it still runs); task is null unless "success".',
  input: () =>
    z.object({
      task_id: taskId(),
      block: z.boolean().default(true).describe('true (default): wait until the task reaches a terminal state'),
      timeout: z
        .number()
        .int()
        .min(0)
        .max(maxTaskOutputTimeoutMs)
        .default(defaultTaskOutputTimeoutMs)
        .describe(`Maximum wait in milliseconds when block is true, 0-${maxTaskOutputTimeoutMs} (default ${defaultTaskOutputTimeoutMs})`),
    }),
});

export const taskStop = defineTool({
  name: 'TaskStop',
  waits: true,
  description: 'Stop a running background agent task and all its sub-agents. The task must still be running.',
  input: () => z.object({ task_id: taskId() }),
});

/** claurst's alias of `TaskStop` (its older name, for shells): the id comes as `task_id` or `shell_id`. */
export const killShell = defineTool({
  name: 'KillShell',
  waits: true,
  description: 'Alias of TaskStop: stop a running background task (here: an agent task) by its id.',
  input: () =>
    z
      .object({
        task_id: taskId().optional(),
        shell_id: z.string().trim().min(1).optional().describe('The same id, under its older name'),
      })
      .refine((args) => (args.task_id ?? args.shell_id) !== undefined, 'give task_id (or shell_id)'),
});
