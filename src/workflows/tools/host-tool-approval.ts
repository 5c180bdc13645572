import type { HostToolEntry } from '../../shared/host-tools.js';
import type { ToolContext } from './tool-context.js';

export type ApprovalDecision = { approved: true } | { approved: false; reason: string };

/**
 * Whether a host tool's call may run: asked just before its activity is scheduled, with the tool's catalogue entry
 * (whose `needs_approval` says whether it asks) and the model's arguments. Every call is approved for now; asking
 * the user goes here, and a refusal comes back to the model as the call's tool error. A promise already, so that
 * waiting for an answer changes nothing around it: a call that needs no approval resolves in one step, as now, and
 * the calls of a round keep scheduling their activities in the order they do today.
 */
export function approveHostToolCall(
  _tool: HostToolEntry,
  _args: Record<string, unknown>,
  _context: ToolContext,
): Promise<ApprovalDecision> {
  return Promise.resolve({ approved: true });
}
