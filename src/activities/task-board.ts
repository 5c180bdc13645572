import { ApplicationFailure } from '@temporalio/common';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { taskBoardWritesUpdate } from '../shared/messages.js';
import type { ToolReply } from '../shared/tool-reply.js';
import type { TaskBoardRequest } from '../shared/tools/task-board.js';
import { refuseBatch, type BatchedWrite } from '../shared/write-batches.js';
import { WriteBatcher } from '../client/access/write-batcher.js';
import { completeLater } from './complete-later.js';

export interface TaskBoardCall {
  root_session_id: string;
  /** Fixed per tool call: the root applies a key once, so a retried activity does not apply it twice. */
  update_id: string;
  request: TaskBoardRequest;
}

export interface TaskBoardSettlement {
  root_session_id: string;
  /** The update_id of the operation given up on. */
  update_id: string;
  reason: string;
}

/**
 * The task-board activities of sub-agents: their operations go to the root session, which owns the board, gathered
 * per root into batches (one in flight per root from this worker) and completed asynchronously (see completeLater).
 */
export function createTaskBoardActivities(client: Client) {
  const batcher = new WriteBatcher<TaskBoardRequest>(async (rootSessionId, writes: BatchedWrite<TaskBoardRequest>[], batchId) => {
    try {
      const { replies } = await client.workflow
        .getHandle(rootSessionId)
        .executeUpdate(taskBoardWritesUpdate, { args: [{ writes }], updateId: batchId });
      return replies;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) {
        throw ApplicationFailure.nonRetryable(
          `The root session ${rootSessionId}, which keeps the task board, has ended.`,
          'TaskBoardUnavailable',
        );
      }
      if (error instanceof WorkflowUpdateFailedError) {
        const reason = error.cause?.message ?? error.message;
        return refuseBatch({ writes }, reason).replies;
      }
      throw error;
    }
  });
  return {
    async callTaskBoard({ root_session_id, update_id, request }: TaskBoardCall): Promise<ToolReply<unknown>> {
      return completeLater(client, batcher.submit(root_session_id, { key: update_id, request }));
    },
    /** Whether an operation whose activity failed was applied after all; if not, it never will be. */
    async settleTaskBoardCall({ root_session_id, update_id, reason }: TaskBoardSettlement): Promise<ToolReply<unknown>> {
      return completeLater(client, batcher.submit(root_session_id, { key: update_id, abandon: true, reason }));
    },
  };
}
