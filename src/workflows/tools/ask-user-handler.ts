import { CancellationScope, condition, getExternalWorkflowHandle, uuid4 } from '@temporalio/workflow';
import { answeredResult, unansweredResult, type ResolvedAnswer } from '../../shared/answers.js';
import type { ApprovalRequest } from '../../shared/approval-request.js';
import { treeQuestionsSignal } from '../../shared/messages.js';
import type { TreeQuestionsChange } from '../../shared/questions.js';
import type { ToolArgs } from '../../shared/tools/define-tool.js';
import type { askUser, Question, QuestionSet } from '../../shared/tools/ask-user.js';
import type { SessionState } from '../session-state.js';
import type { ToolContext } from './tool-context.js';

/**
 * Asks the user and waits, durably, for the answers (or the deployment's question timeout). Only this session
 * pauses; its root is told, so the root's snapshot lists the question set for whoever steers the tree.
 */
export async function askQuestions(args: ToolArgs<typeof askUser>, context: ToolContext): Promise<string> {
  const outcome = await askAndWait(args.questions, context);
  return outcome.answered ? answeredResult(outcome.answers) : unansweredResult(args.questions, outcome.waitedSeconds);
}

export type AskOutcome = { answered: true; answers: ResolvedAnswer[] } | { answered: false; waitedSeconds: number };

/**
 * askUser's machinery, which an approval before a host tool's call uses too (`approval` marks its set): the set is
 * listed in this session's and its root's pending questions, answered by the `answerQuestions` update, and waited
 * for on a durable condition bounded by the deployment's question timeout.
 */
export async function askAndWait(
  questions: Question[],
  { state, reportStatus }: Pick<ToolContext, 'state' | 'reportStatus'>,
  {
    approval,
    limitMs = timeoutMs(state),
    secretQuestions,
  }: {
    approval?: ApprovalRequest | undefined;
    /** How long to wait, in milliseconds (undefined: no limit); default: the deployment's question timeout. */
    limitMs?: number | undefined;
    secretQuestions?: string[] | undefined;
  } = {},
): Promise<AskOutcome> {
  const { identity } = state;
  const set: QuestionSet = {
    question_set_id: uuid4(),
    session_id: identity.session_id,
    session_title: identity.title,
    questions,
    asked_at: new Date().toISOString(),
    ...(approval ? { approval } : {}),
    ...(secretQuestions && secretQuestions.length > 0 ? { secret_questions: secretQuestions } : {}),
  };
  state.questions.push(set);
  reportStatus('waiting_for_user');
  state.events.emit({
    type: 'questions_asked',
    question_set_id: set.question_set_id,
    questions: set.questions,
    ...(approval ? { approval } : {}),
  });
  await tellRoot(state, { kind: 'asked', question_set: set, ancestor_session_ids: identity.ancestor_session_ids });
  const asked = Date.now();
  try {
    const answered = () => answersFor(state, set.question_set_id) !== undefined;
    const answeredInTime = limitMs === undefined ? (await condition(answered), true) : await condition(answered, limitMs);
    const answers = answersFor(state, set.question_set_id);
    if (!answeredInTime || !answers) {
      state.events.emit({ type: 'questions_expired', question_set_id: set.question_set_id });
      return { answered: false, waitedSeconds: Math.round((Date.now() - asked) / 1000) };
    }
    return { answered: true, answers };
  } finally {
    state.questions = state.questions.filter((pending) => pending.question_set_id !== set.question_set_id);
    if (state.questions.length === 0 && state.status === 'waiting_for_user') reportStatus('running');
    await CancellationScope.nonCancellable(() => tellRoot(state, { kind: 'settled', question_set_id: set.question_set_id }));
  }
}

function answersFor(state: SessionState, questionSetId: string) {
  return state.questions.find((set) => set.question_set_id === questionSetId)?.answers;
}

export function timeoutMs(state: SessionState): number | undefined {
  const seconds = state.settings.questionTimeoutSeconds;
  return seconds === null ? undefined : seconds * 1000;
}

/** A sub-agent reports its questions to the root session; a root keeps its own. The root may be gone: then nobody is told. */
async function tellRoot(state: SessionState, change: TreeQuestionsChange): Promise<void> {
  const { root_session_id, session_id } = state.identity;
  if (root_session_id === session_id) return;
  try {
    await getExternalWorkflowHandle(root_session_id).signal(treeQuestionsSignal, change);
  } catch {
    // The root has closed; its whole tree is being stopped, so there is nobody to tell.
  }
}
