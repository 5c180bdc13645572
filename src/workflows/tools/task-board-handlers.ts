import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type { ToolReply } from '../../shared/tool-reply.js';
import type { TaskBoardOperation, TaskBoardRequest } from '../../shared/tools/task-board.js';
import type { ToolContext } from './tool-context.js';
import { replyText } from './reply.js';
import { skipRetiredRandomId } from './retired-random-id.js';
import { settledWrite } from './settled-write.js';

// An update of the root takes milliseconds; a short timeout lets a retry on another worker start soon after a worker dies.
const { callTaskBoard } = proxyActivities<Activities>({ startToCloseTimeout: '10 seconds', retry: { maximumAttempts: 5 } });
// Settling an operation given up on is what the model will be told, so it is asked for longer.
const { settleTaskBoardCall } = proxyActivities<Activities>({ startToCloseTimeout: '10 seconds', scheduleToCloseTimeout: '10 minutes' });

/**
 * Runs a task-board operation on the tree's one board: in this workflow at the root, else as an update of the root
 * session sent by an activity (its id is the call's step key, so a retried activity applies the operation once).
 */
export async function useTaskBoard(operation: TaskBoardOperation, { state, stepKey }: ToolContext): Promise<string> {
  const request = { ...operation, session_id: state.identity.session_id } as TaskBoardRequest;
  if (state.isRoot()) return replyText(state.board.apply(request));
  skipRetiredRandomId();
  const { root_session_id } = state.identity;
  const update_id = `task-board/${stepKey}`;
  const reply: ToolReply<unknown> = await settledWrite(
    () => callTaskBoard({ root_session_id, update_id, request }),
    (reason) => settleTaskBoardCall({ root_session_id, update_id, reason }),
  );
  return replyText(reply);
}
