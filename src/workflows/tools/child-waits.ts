import { condition, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import { childFinalMessageChars, closedStatuses, type ChildSession } from '../../shared/session.js';
import type { SessionState } from '../session-state.js';
import { ToolError } from './tool-error.js';

const tree = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 5 } });

/** A sub-agent this session started (any dialect's spawn tool), or a tool error naming the ones it has. */
export function ownChild(state: SessionState, id: string): ChildSession {
  const child = state.children.find((candidate) => candidate.sub_session_id === id);
  if (child) return child;
  const known = state.children.map((candidate) => candidate.sub_session_id).join(', ') || 'none';
  throw new ToolError(`No sub-agent with id ${id} was started by this session. Its sub-agents: ${known}.`);
}

export function hasEnded(child: ChildSession): boolean {
  return closedStatuses.includes(child.status);
}

/**
 * Waits, durably, until the sub-agent has ended: a workflow condition on its record, which its end (its handle's
 * result or its finish signal) updates, bounded by a timer when `timeoutMs` is a number (0: no wait; null: no limit).
 * Resolves true when it has ended. A worker restart meanwhile replays to the same wait.
 */
export async function waitForEnd(state: SessionState, child: ChildSession, timeoutMs: number | null): Promise<boolean> {
  const ended = () => hasEnded(child);
  if (ended() || timeoutMs === 0) return ended();
  if (timeoutMs === null) {
    await condition(ended);
    return true;
  }
  return condition(ended, timeoutMs);
}

/** The sub-agent's whole final message: its parent's record keeps only the start of a long one, the child has it all. */
export async function finalMessageOf(state: SessionState, child: ChildSession): Promise<string | null> {
  if (child.final_message === null || child.final_message.length <= childFinalMessageChars) return child.final_message;
  const reply = await tree.getSubAgentMessage(state.identity.session_id, child.sub_session_id);
  const content = reply.ok ? reply.result['content'] : undefined;
  return typeof content === 'string' ? content : child.final_message;
}
