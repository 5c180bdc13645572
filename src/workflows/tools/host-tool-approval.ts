import { isCancellation, proxyLocalActivities } from '@temporalio/workflow';
import {
  approvalAnsweredNotice,
  approvalAskedNotice,
  approvalDecision,
  approvalQuestion,
  deniedByPolicy,
  deniedUnanswered,
  shownArguments,
  type ApprovalDecision,
} from '../../shared/approvals.js';
import { hostToolNeedsApprovalActivity, type HostToolApprovalCheck, type HostToolEntry } from '../../shared/host-tools.js';
import { hasChange } from '../session-changes.js';
import { askAndWait } from './ask-user-handler.js';
import type { ToolContext } from './tool-context.js';

export type { ApprovalDecision } from '../../shared/approvals.js';

const approved: ApprovalDecision = { approved: true };

const workerSide = proxyLocalActivities<Record<typeof hostToolNeedsApprovalActivity, (input: HostToolApprovalCheck) => Promise<boolean>>>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3, initialInterval: '200 milliseconds' },
});

/**
 * Whether a host tool's call may run: asked just before its activity is scheduled, with the tool's catalogue entry
 * (whose `needs_approval` says whether it asks) and the model's arguments. A call that needs approval asks the user
 * with askUser's machinery (listed in the root's pending questions, answered by `arbor answer`, the SDK or the CLI's
 * prompt), unless the session's policy is `allow` (it runs) or `deny` (it does not); a refusal comes back to the
 * model as the call's tool error. A call that needs none resolves in one step, so the calls of a round keep
 * scheduling their activities in the order they always did. Not async: the SDK captures a stack trace for every
 * workflow promise.
 */
export function approveHostToolCall(
  tool: HostToolEntry,
  args: Record<string, unknown>,
  argumentsText: string,
  context: ToolContext,
): Promise<ApprovalDecision> {
  const policy = context.state.approvalPolicy;
  if (tool.needs_approval === false || policy === 'allow' || !hasChange('host-tool-approval-asked')) return Promise.resolve(approved);
  const needed = tool.needs_approval === 'by_arguments' ? askTheTool(tool, args) : Promise.resolve(true);
  return needed.then((needs) => {
    if (!needs) return approved;
    if (policy === 'deny') return { approved: false, reason: deniedByPolicy(tool.name) };
    // One microtask later, so that asking issues its first command (the status upsert) as many steps after the
    // decision as an approved call's activity is scheduled (through runHostTool's `then`). The decisions of a round's
    // calls that ask the worker resolve in one activation on replay but may resolve in several live: at equal depth,
    // their commands keep the order of the decisions either way.
    return Promise.resolve().then(() => askTheUser(tool, argumentsText, context));
  });
}

/** The tool's own function, run on the worker by a local activity (recorded in history); it says "ask" when it cannot answer. */
function askTheTool(tool: HostToolEntry, args: Record<string, unknown>): Promise<boolean> {
  return workerSide[hostToolNeedsApprovalActivity]({ tool_name: tool.name, arguments: args }).then(
    (needs) => needs !== false,
    (error: unknown) => {
      if (isCancellation(error)) throw error;
      return true;
    },
  );
}

function askTheUser(tool: HostToolEntry, argumentsText: string, context: ToolContext): Promise<ApprovalDecision> {
  const { state } = context;
  state.append({ role: 'notice', content: approvalAskedNotice(tool.name, argumentsText), turn: state.turn });
  const request = { tool_name: tool.name, tool_call_id: context.toolCallId, arguments: shownArguments(argumentsText) };
  return askAndWait([approvalQuestion(tool.name, argumentsText)], context, { approval: request }).then((outcome): ApprovalDecision => {
    if (!outcome.answered) {
      const reason = deniedUnanswered(tool.name, outcome.waitedSeconds);
      state.append({ role: 'notice', content: `Approval expired for ${tool.name}: ${reason}`, turn: state.turn });
      return { approved: false, reason };
    }
    const answer = outcome.answers[0]!;
    state.append({ role: 'notice', content: approvalAnsweredNotice(tool.name, answer), turn: state.turn });
    return approvalDecision(tool.name, answer);
  });
}
