import { z } from 'zod';
import { defineTool } from './define-tool.js';

export const taskStatuses = ['pending', 'in_progress', 'completed', 'failed', 'killed'] as const;
export type TaskStatus = (typeof taskStatuses)[number];
export const maxTasks = 1_000;

const taskId = () => z.string().trim().min(1).max(20).describe('A task id from TaskCreate or TaskList');
const metadata = () =>
  z
    .record(z.string().max(100), z.unknown())
    .refine((value) => JSON.stringify(value).length <= 10_000, 'metadata is at most 10,000 characters of JSON');

export const taskCreate = defineTool({
  name: 'TaskCreate',
  description:
    'Create a task on the task board shared by this session and all its sub-agents: a lightweight record of work with a ' +
    'status, a description and dependency links (not a running agent). Returns the task id.',
  input: () =>
    z.object({
      subject: z.string().trim().min(1).max(200).describe('Short title of the task'),
      description: z.string().max(10_000).default('').describe('What the task involves'),
      metadata: metadata().optional().describe('Arbitrary key-value metadata'),
    }),
});

/**
 * The task's id is taken as `task_id`, or as `taskId` (claurst's spelling in TaskGet and TaskUpdate); the handler
 * reads `task_id`.
 */
const idAlias = () => ({ taskId: taskId().optional().describe('Same as task_id') });
const idGiven = [
  (args: { task_id?: string | undefined; taskId?: string | undefined }) => (args.task_id ?? args.taskId) !== undefined,
  { message: 'Give the task id as task_id (or taskId).' },
] as const;
const oneId = <T extends { task_id?: string | undefined; taskId?: string | undefined }>({ taskId: alias, task_id, ...rest }: T) => ({
  ...rest,
  task_id: (task_id ?? alias)!,
});

export const taskGet = defineTool({
  name: 'TaskGet',
  description: 'Read a task from the shared board: status, description, owner and dependencies. {"task": null} if there is no such task.',
  input: () =>
    z
      .object({ task_id: taskId().optional(), ...idAlias() })
      .refine(...idGiven)
      .transform(oneId),
});

export const taskUpdate = defineTool({
  name: 'TaskUpdate',
  description:
    'Update a task on the shared board: status (pending, in_progress, completed, failed, killed, or deleted to remove it), ' +
    'subject, description, dependencies (addBlocks, addBlockedBy), owner, metadata (a null value removes a key). ' +
    'A dependency cycle is refused.',
  input: () =>
    z
      .object({
        task_id: taskId().optional(),
        ...idAlias(),
        status: z.enum([...taskStatuses, 'deleted']).optional(),
        subject: z.string().trim().min(1).max(200).optional(),
        description: z.string().max(10_000).optional(),
        addBlocks: z.array(taskId()).max(100).optional().describe('Task ids this task now blocks'),
        addBlockedBy: z.array(taskId()).max(100).optional().describe('Task ids that now block this task'),
        owner: z.string().trim().max(100).optional().describe('The agent that owns the task; empty string clears it'),
        metadata: metadata().optional(),
      })
      .refine(...idGiven)
      .transform(oneId),
});

export const taskList = defineTool({
  name: 'TaskList',
  description: 'List the tasks on the shared board (deleted ones excluded), each with the blockers not yet completed.',
  input: () => z.object({}),
});

export type TaskCreateArgs = z.infer<typeof taskCreate.input>;
export type TaskUpdateArgs = z.infer<typeof taskUpdate.input>;

/** A task as the board stores it. */
export interface BoardTask {
  id: string;
  subject: string;
  description: string;
  status: TaskStatus;
  owner: string | null;
  metadata: Record<string, unknown>;
  blocks: string[];
  blockedBy: string[];
  created_by: string;
  created_at: string;
  updated_at: string;
}

export type TaskBoardOperation =
  | { op: 'create'; args: TaskCreateArgs }
  | { op: 'get'; args: { task_id: string } }
  | { op: 'update'; args: TaskUpdateArgs }
  | { op: 'list' };

/** One operation on a tree's board and the session that asks, as a sub-agent sends it to the root that owns the board. */
export type TaskBoardRequest = TaskBoardOperation & { session_id: string };
