import { proxyActivities, uuid4 } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type { ToolReply } from '../../shared/tool-reply.js';
import type { TaskBoardOperation, TaskBoardRequest } from '../../shared/tools/task-board.js';
import type { ToolContext } from './tool-context.js';
import { replyText } from './reply.js';

const { callTaskBoard } = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 5 } });

/**
 * Runs a task-board operation on the tree's one board: in this workflow at the root, else as an update of the root
 * session sent by an activity (its id is fixed per call, so a retried activity applies the operation once).
 */
export async function useTaskBoard(operation: TaskBoardOperation, { state }: ToolContext): Promise<string> {
  const request = { ...operation, session_id: state.identity.session_id } as TaskBoardRequest;
  const reply: ToolReply<unknown> = state.isRoot()
    ? state.board.apply(request)
    : await callTaskBoard({ root_session_id: state.identity.root_session_id, update_id: uuid4(), request });
  return replyText(reply);
}
