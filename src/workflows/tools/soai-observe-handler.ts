import type { ToolArgs } from '../../shared/tools/define-tool.js';
import type { subagentObserve } from '../../shared/tools/soai-subagents.js';
import type { ChildSession, SessionStatus } from '../../shared/session.js';
import type { ToolContext } from './tool-context.js';
import { finalMessageOf, hasEnded, ownChild, waitForEnd } from './child-waits.js';

/** soai's subagent states: running until it finishes (completed), is cancelled, fails, or is abandoned. */
function subagentState(status: SessionStatus): 'running' | 'waiting_for_user' | 'completed' | 'cancelled' | 'failed' {
  if (status === 'stopped') return 'cancelled';
  if (status === 'completed' || status === 'failed' || status === 'waiting_for_user') return status;
  return 'running';
}

/** soai `subagent_observe`: a snapshot now (`current`), or a durable wait for the subagent's end (`terminal`). */
export async function observeSubagent(args: ToolArgs<typeof subagentObserve>, context: ToolContext): Promise<string> {
  const child = ownChild(context.state, args.subagent_id);
  const ended = args.mode === 'terminal' ? await waitForEnd(context.state, child, args.timeout_ms) : hasEnded(child);
  return JSON.stringify(await snapshotOf(child, ended, args.mode === 'terminal' && !ended, context));
}

async function snapshotOf(child: ChildSession, ended: boolean, timedOut: boolean, context: ToolContext) {
  return {
    subagent_id: child.sub_session_id,
    display_name: child.name ?? child.title,
    status: subagentState(child.status),
    terminal: ended,
    timed_out: timedOut,
    final_message: ended ? await finalMessageOf(context.state, child) : null,
    updated_at: child.updated_at,
  };
}
