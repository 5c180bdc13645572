import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ArborClientError } from './errors.js';
import { checkAnswers, type Answers, type ResolvedAnswer } from '../shared/answers.js';
import { sealSecret, secretKeyFromEnv } from './secret-seal.js';
import { answerRulesOf } from '../shared/approvals.js';
import { answerQuestionsUpdate, snapshotQuery } from '../shared/messages.js';
import type { AnswerReceipt } from '../shared/questions.js';
import type { QuestionSet } from '../shared/tools/ask-user.js';
import { boundedQuery } from './access/query-failures.js';

/** The question sets waiting in a session's tree: the session's own and, through its root, those of every session below. */
export async function pendingQuestionsOf(client: Client, sessionId: string): Promise<QuestionSet[]> {
  const snapshot = await querySnapshot(client, sessionId);
  if (snapshot.root_session_id === sessionId) return snapshot.pending_questions;
  const root = await querySnapshot(client, snapshot.root_session_id).catch(() => undefined);
  const all = [...snapshot.pending_questions, ...(root?.pending_questions ?? [])];
  return all.filter((set, index) => all.findIndex((other) => other.question_set_id === set.question_set_id) === index);
}

/**
 * Answers a question set asked anywhere in the tree of `sessionId` (through the root, or at the asking session):
 * the answers are checked here for a quick, clear error, then sent to the asking session, whose update validator has
 * the final word. A refused answer changes nothing.
 */
export async function answerQuestionSet(
  client: Client,
  sessionId: string,
  questionSetId: string | undefined,
  answers: unknown,
): Promise<AnswerReceipt> {
  const pending = await pendingQuestionsOf(client, sessionId);
  const set = chooseQuestionSet(pending, questionSetId, answers, sessionId);
  const check = checkAnswers(set.questions, answers, answerRulesOf(set));
  if (!check.ok) throw new ArborClientError(check.error);
  const sent = sealSecretAnswers(set, check.answers, answers as Answers);
  try {
    return await client.workflow
      .getHandle(set.session_id)
      .executeUpdate(answerQuestionsUpdate, { args: [{ question_set_id: set.question_set_id, answers: sent }] });
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError) throw new ArborClientError(error.cause?.message ?? error.message);
    if (error instanceof WorkflowNotFoundError)
      throw new ArborClientError(`Session ${set.session_id}, which asked, has ended; the questions no longer wait.`);
    throw error;
  }
}

/**
 * The answers as sent: those to secret questions sealed with ARBOR_SECRET_KEY (the workers' key), so the update, and
 * the session's history, never hold them in clear; without the key a secret question cannot be answered.
 */
function sealSecretAnswers(set: QuestionSet, resolved: ResolvedAnswer[], answers: Answers): Answers {
  const secret = set.secret_questions ?? [];
  if (secret.length === 0) return answers;
  const key = secretKeyFromEnv();
  if (!key)
    throw new ArborClientError(
      `The question(s) ${secret.map((q) => `"${q}"`).join(', ')} are secret: set ARBOR_SECRET_KEY to the workers' key to answer them sealed.`,
    );
  const sealed: Answers = {};
  for (const answer of resolved) {
    const text = answer.other ?? answer.selected.join(', ');
    sealed[answer.question] = secret.includes(answer.question)
      ? { other: sealSecret(text, key) }
      : [...answer.selected, ...(answer.other !== undefined ? [{ other: answer.other }] : [])];
  }
  return sealed;
}

function chooseQuestionSet(pending: QuestionSet[], questionSetId: string | undefined, answers: unknown, sessionId: string): QuestionSet {
  if (pending.length === 0) throw new ArborClientError(`No questions are waiting for an answer in the tree of session ${sessionId}.`);
  if (questionSetId !== undefined) {
    const set = pending.find((candidate) => candidate.question_set_id === questionSetId);
    if (set) return set;
    throw new ArborClientError(
      `No question set ${questionSetId} is waiting for an answer in the tree of session ${sessionId}. Waiting: ${describeSets(pending)}.`,
    );
  }
  if (pending.length === 1) return pending[0]!;
  const keys = typeof answers === 'object' && answers !== null ? Object.keys(answers) : [];
  const matching = pending.filter((set) => keys.length > 0 && keys.every((key) => set.questions.some((q) => q.question === key)));
  if (matching.length === 1) return matching[0]!;
  throw new ArborClientError(`Several question sets are waiting; name one with its id. Waiting: ${describeSets(pending)}.`);
}

function describeSets(sets: QuestionSet[]): string {
  return sets
    .map((set) => `${set.question_set_id} (from "${set.session_title}": ${set.questions.map((q) => `"${q.question}"`).join(', ')})`)
    .join('; ');
}

async function querySnapshot(client: Client, sessionId: string) {
  try {
    return await boundedQuery(client, sessionId, () => client.workflow.getHandle(sessionId).query(snapshotQuery));
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new ArborClientError(`No session with id ${sessionId}.`);
    throw error;
  }
}
