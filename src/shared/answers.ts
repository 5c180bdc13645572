import type { Question } from './tools/ask-user.js';

/**
 * How a person answers an askUser question: an option's label, a list of labels (multi-select), or their own words
 * as `{ "other": "..." }` or a string starting with `Other:`. Keys are the question texts (or their headers).
 */
export type AnswerChoice = string | { other: string };
export type AnswerValue = AnswerChoice | AnswerChoice[];
export type Answers = Record<string, AnswerValue>;

/** One question's answer after checking: the labels chosen and, for "Other", the user's text. */
export interface ResolvedAnswer {
  question: string;
  selected: string[];
  other?: string;
}

export type AnswerCheck = { ok: true; answers: ResolvedAnswer[] } | { ok: false; error: string };

const otherPrefix = /^other\s*:\s*/i;
const howToAnswerOther = 'to answer in your own words send {"other": "your text"} or "Other: your text"';

export interface AnswerRules {
  /** Labels a single-select answer may give together with the user's own words (an approval's Deny and a reason). */
  labelsTakingWords?: readonly string[];
}

/** Checks a person's answers against the questions asked; every broken rule gives a message that says what to fix. */
export function checkAnswers(questions: readonly Question[], raw: unknown, rules: AnswerRules = {}): AnswerCheck {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return fail('answers must be a JSON object mapping each question to a label, a list of labels, or {"other": "your text"}');
  }
  const byQuestion = new Map<Question, unknown>();
  for (const [key, value] of Object.entries(raw)) {
    const question = findQuestion(questions, key);
    if (!question) {
      return fail(`"${key}" is not one of the questions asked. The questions are: ${questions.map((q) => `"${q.question}"`).join(', ')}.`);
    }
    if (byQuestion.has(question)) return fail(`"${question.question}" is answered twice.`);
    byQuestion.set(question, value);
  }
  const resolved: ResolvedAnswer[] = [];
  for (const question of questions) {
    if (!byQuestion.has(question)) return fail(`No answer for "${question.question}": every question needs one.`);
    const answer = resolveAnswer(question, byQuestion.get(question), rules);
    if (typeof answer === 'string') return fail(answer);
    resolved.push(answer);
  }
  return { ok: true, answers: resolved };
}

function fail(error: string): AnswerCheck {
  return { ok: false, error };
}

function resolveAnswer(question: Question, value: unknown, rules: AnswerRules): ResolvedAnswer | string {
  const choices = Array.isArray(value) ? value : [value];
  if (choices.length === 0) return `No option chosen for "${question.question}".`;
  const selected: string[] = [];
  let other: string | undefined;
  for (const choice of choices) {
    // A question without options (soai's free text) takes the user's words as they are.
    const text = otherText(choice) ?? (question.options.length === 0 && typeof choice === 'string' ? choice : undefined);
    if (text !== undefined) {
      if (!text.trim()) return `The "Other" answer to "${question.question}" is empty: write some text.`;
      if (other !== undefined) return `"${question.question}" has more than one "Other" answer.`;
      other = text.trim();
      continue;
    }
    if (typeof choice !== 'string') {
      return `The answer to "${question.question}" must be a label, a list of labels, or {"other": "your text"}.`;
    }
    const label = findLabel(question, choice);
    if (!label) {
      const options = question.options.map((option) => `"${option.label}"`).join(', ');
      return `"${choice}" is not an option of "${question.question}". The options are ${options}; ${howToAnswerOther}.`;
    }
    if (!selected.includes(label)) selected.push(label);
  }
  const count = selected.length + (other === undefined ? 0 : 1);
  const labelWithWords = count === 2 && other !== undefined && rules.labelsTakingWords?.includes(selected[0]!) === true;
  if (!question.multiSelect && count > 1 && !labelWithWords) {
    const words = rules.labelsTakingWords?.length
      ? ` (only ${rules.labelsTakingWords.map((label) => `"${label}"`).join(', ')} may come with your own words)`
      : '';
    return `"${question.question}" takes a single answer, got ${count}${words}.`;
  }
  return { question: question.question, selected, ...(other !== undefined ? { other } : {}) };
}

function otherText(choice: unknown): string | undefined {
  if (typeof choice === 'string') return otherPrefix.test(choice) ? choice.replace(otherPrefix, '') : undefined;
  if (typeof choice === 'object' && choice !== null && !Array.isArray(choice)) {
    const keys = Object.keys(choice);
    const text = (choice as Record<string, unknown>)['other'];
    if (keys.length === 1 && typeof text === 'string') return text;
  }
  return undefined;
}

function findQuestion(questions: readonly Question[], key: string): Question | undefined {
  return (
    questions.find((q) => q.question === key) ??
    questions.find((q) => q.question.trim().toLowerCase() === key.trim().toLowerCase()) ??
    questions.find((q) => q.header.toLowerCase() === key.trim().toLowerCase())
  );
}

function findLabel(question: Question, choice: string): string | undefined {
  const wanted = choice.trim().toLowerCase();
  return (
    question.options.find((option) => option.label === choice)?.label ??
    question.options.find((option) => option.label.toLowerCase() === wanted)?.label
  );
}

/** The text one answer reads as: the chosen labels and the user's own words, joined with ", ". */
export function answerText(answer: ResolvedAnswer): string {
  return [...answer.selected, ...(answer.other !== undefined ? [answer.other] : [])].join(', ');
}

/** The askUser tool result once the user has answered, exactly as the seed gives it. */
export function answeredResult(answers: readonly ResolvedAnswer[]): string {
  const pairs = answers.map((answer) => `"${answer.question}"="${answerText(answer)}"`).join(', ');
  return `User has answered your questions: ${pairs}. You can now continue with the user's answers in mind.`;
}

/** The askUser tool result when the deployment's question timeout passed first. */
export function unansweredResult(questions: readonly Question[], waitedSeconds: number): string {
  const asked = questions.map((q) => `"${q.question}"`).join(', ');
  return (
    `The user did not answer your questions (${asked}) within ${formatSeconds(waitedSeconds)}. ` +
    'Continue without their answers, stating the assumptions you make, or ask again later.'
  );
}

export function formatSeconds(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400} day(s)`;
  if (seconds % 3_600 === 0) return `${seconds / 3_600} hour(s)`;
  if (seconds % 60 === 0) return `${seconds / 60} minute(s)`;
  return `${seconds} s`;
}
