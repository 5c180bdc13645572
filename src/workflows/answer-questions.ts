import { checkAnswers } from '../shared/answers.js';
import { answerRulesOf } from '../shared/approvals.js';
import { answerRequestSchema, type AnswerReceipt, type AnswerRequest } from '../shared/questions.js';
import type { SessionState } from './session-state.js';
import { unsealedSecretProblem } from '../shared/sealed-answers.js';

/**
 * The validator of the answer update: throws (refusing the update, which then leaves no trace in history) unless the
 * question set is this session's, still waiting, and every answer fits its question.
 */
export function checkAnswerRequest(state: SessionState, request: AnswerRequest): void {
  const parsed = answerRequestSchema().safeParse(request);
  if (!parsed.success) throw new Error('An answer needs a question_set_id and an answers object.');
  const { question_set_id, answers } = parsed.data;
  const set = state.questions.find((candidate) => candidate.question_set_id === question_set_id);
  if (!set) {
    const below = state.treeQuestions.find((candidate) => candidate.question_set_id === question_set_id);
    if (below) {
      throw new Error(
        `Question set ${question_set_id} was asked by session ${below.session_id} ("${below.session_title}"): send the answers to that session.`,
      );
    }
    throw new Error(`Session ${state.identity.session_id} has no question set ${question_set_id} waiting for an answer.`);
  }
  if (set.answers) throw new Error(`Question set ${question_set_id} has already been answered.`);
  const check = checkAnswers(set.questions, answers, answerRulesOf(set));
  if (!check.ok) throw new Error(check.error);
  // Refused by the validator, an answer in clear to a secret question never reaches the history.
  const unsealed = unsealedSecretProblem(set.secret_questions, check.answers);
  if (unsealed) throw new Error(unsealed);
}

/** Records answers the validator accepted; the waiting askUser call picks them up. */
export function acceptAnswers(state: SessionState, request: AnswerRequest): AnswerReceipt {
  const set = state.questions.find((candidate) => candidate.question_set_id === request.question_set_id);
  const check = set && !set.answers ? checkAnswers(set.questions, request.answers, answerRulesOf(set)) : undefined;
  // Validators do not run during replay, so the handler checks again rather than trusting them.
  if (!set || !check?.ok || unsealedSecretProblem(set.secret_questions, check.answers))
    throw new Error(`Question set ${request.question_set_id} cannot take these answers any more.`);
  set.answers = check.answers;
  state.events.emit({ type: 'questions_answered', question_set_id: set.question_set_id, answers: check.answers });
  return { question_set_id: set.question_set_id, session_id: state.identity.session_id, answers: check.answers };
}
