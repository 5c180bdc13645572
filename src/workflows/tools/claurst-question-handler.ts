import type { ResolvedAnswer } from '../../shared/answers.js';
import type { Question } from '../../shared/tools/ask-user.js';
import type { ToolArgs } from '../../shared/tools/define-tool.js';
import type { askUserQuestion, ClaurstQuestion } from '../../shared/tools/claurst-questions.js';
import type { ToolContext } from './tool-context.js';
import { askAndWait } from './ask-user-handler.js';
import { ToolError } from './tool-error.js';

/**
 * claurst `AskUserQuestion` on the askUser capability: the same pending question set (answered by label through the
 * SDK or `arbor answer`), with each chosen label turned into its option's value; the user's own words come as typed.
 */
export async function askUserQuestions(args: ToolArgs<typeof askUserQuestion>, context: ToolContext): Promise<string> {
  const outcome = await askAndWait(args.questions.map(asQuestion), context);
  if (!outcome.answered)
    throw new ToolError(`The user did not answer within ${outcome.waitedSeconds} s. Continue without the answers, or ask again later.`);
  const answers: Record<string, string | string[]> = {};
  args.questions.forEach((question, index) => {
    const values = valuesOf(question, outcome.answers[index]!);
    answers[question.question] = question.multiSelect ? values : (values[0] ?? '');
  });
  return JSON.stringify({ questions: args.questions, answers });
}

function asQuestion(question: ClaurstQuestion, index: number): Question {
  return {
    question: question.question,
    // askUser's sets always carry a header (the CLI shows it as a chip, and answers may be keyed by it).
    header: question.header ?? `Q${index + 1}`,
    options: question.options.map((option) => ({ label: option.label, description: option.description ?? option.value })),
    multiSelect: question.multiSelect,
  };
}

function valuesOf(question: ClaurstQuestion, answer: ResolvedAnswer): string[] {
  const chosen = answer.selected.map((label) => question.options.find((option) => option.label === label)?.value ?? label);
  return answer.other !== undefined ? [...chosen, answer.other] : chosen;
}
