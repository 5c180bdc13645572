import { ApplicationFailure } from '@temporalio/common';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { taskBoardUpdate } from '../shared/messages.js';
import type { ToolReply } from '../shared/tool-reply.js';
import type { TaskBoardRequest } from '../shared/tools/task-board.js';

export interface TaskBoardCall {
  root_session_id: string;
  /** Fixed per tool call: Temporal applies an update id once, so a retried activity does not apply it twice. */
  update_id: string;
  request: TaskBoardRequest;
}

/** The task-board activity of sub-agents: their operations go to the root session, which owns the board. */
export function createTaskBoardActivities(client: Client) {
  return {
    async callTaskBoard({ root_session_id, update_id, request }: TaskBoardCall): Promise<ToolReply<unknown>> {
      try {
        return await client.workflow.getHandle(root_session_id).executeUpdate(taskBoardUpdate, { args: [request], updateId: update_id });
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) {
          throw ApplicationFailure.nonRetryable(
            `The root session ${root_session_id}, which keeps the task board, has ended.`,
            'TaskBoardUnavailable',
          );
        }
        if (error instanceof WorkflowUpdateFailedError) return { ok: false, error: error.cause?.message ?? error.message };
        throw error;
      }
    },
  };
}
