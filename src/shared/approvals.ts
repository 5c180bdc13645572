import { z } from 'zod';
import { answerText, formatSeconds, type AnswerRules, type ResolvedAnswer } from './answers.js';
import type { Question, QuestionSet } from './tools/ask-user.js';

export type { ApprovalRequest } from './approval-request.js';

/**
 * Approval before a host tool's call: a tool that needs it (`needsApproval`) asks the user with a question set of
 * one question, through askUser's machinery, unless the session's policy says otherwise. Both sides read these: the
 * workflow asks and reads the answer, the client and the CLI check and prompt for it.
 */

/** A session's approval policy: ask the user (default), allow every call, or deny every call that needs approval. */
export const approvalPolicies = ['ask', 'allow', 'deny'] as const;
export type ApprovalPolicy = (typeof approvalPolicies)[number];
export const approvalPolicySchema = () => z.enum(approvalPolicies);

export const approveLabel = 'Approve';
export const denyLabel = 'Deny';
/** The labels an answer may give together with the user's own words (a reason): Deny only. */
export const labelsTakingWords: readonly string[] = [denyLabel];

/** How a question set's answers are checked: askUser's rules, and for an approval, Deny may come with a reason. */
export function answerRulesOf(set: Pick<QuestionSet, 'approval'>): AnswerRules {
  return set.approval ? { labelsTakingWords } : {};
}

const maxShownArguments = 600;

/** The one question an approval asks. */
export function approvalQuestion(toolName: string, argumentsText: string): Question {
  return {
    question: `May ${toolName} run with ${shownArguments(argumentsText)}?`,
    header: 'Approval',
    options: [
      { label: approveLabel, description: `Run ${toolName} with these arguments now.` },
      {
        label: denyLabel,
        description: `Do not run it; the model is told you denied it (add your reason with {"other": "..."} alongside).`,
      },
    ],
    multiSelect: false,
  };
}

export function shownArguments(argumentsText: string): string {
  const flat = argumentsText.replace(/\s+/g, ' ').trim() || '{}';
  return flat.length > maxShownArguments ? `${flat.slice(0, maxShownArguments - 1)}…` : flat;
}

export type ApprovalDecision = { approved: true } | { approved: false; reason: string };

/** What the user's answer to an approval question decides, and the words the model reads when the call does not run. */
export function approvalDecision(toolName: string, answer: ResolvedAnswer): ApprovalDecision {
  if (answer.selected.includes(approveLabel) && answer.other === undefined) return { approved: true };
  const words = answer.other !== undefined ? ` They said: "${answer.other}"` : '';
  if (answer.selected.includes(denyLabel))
    return { approved: false, reason: `The user denied the call to ${toolName}, so it did not run.${words}` };
  return { approved: false, reason: `The user did not approve the call to ${toolName}, so it did not run.${words}` };
}

/** The tool result of a call the session's `deny` policy refused without asking. */
export function deniedByPolicy(toolName: string): string {
  return `The call to ${toolName} needs the user's approval, and this session's approval policy is "deny" (it runs without asking anyone), so it was denied and did not run.`;
}

/** The tool result of a call whose approval nobody gave within the deployment's question timeout. */
export function deniedUnanswered(toolName: string, waitedSeconds: number): string {
  return `The user did not answer whether ${toolName} may run within ${formatSeconds(waitedSeconds)}, so the call was denied and did not run.`;
}

/** The transcript's notice of an approval asked, and of its answer. */
export function approvalAskedNotice(toolName: string, argumentsText: string): string {
  return `Approval asked: may ${toolName} run with ${shownArguments(argumentsText)}?`;
}

export function approvalAnsweredNotice(toolName: string, answer: ResolvedAnswer): string {
  const decision = approvalDecision(toolName, answer);
  return `Approval answered for ${toolName}: ${answerText(answer)} (${decision.approved ? 'the call runs' : 'the call does not run'}).`;
}
