import { proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type { ResolvedAnswer } from '../../shared/answers.js';
import type { Question } from '../../shared/tools/ask-user.js';
import type { ToolArgs } from '../../shared/tools/define-tool.js';
import { soaiAskUserTimeoutSeconds, type soaiAskUser, type SoaiQuestion } from '../../shared/tools/soai-ask-user.js';
import type { ToolContext } from './tool-context.js';
import { askAndWait, timeoutMs } from './ask-user-handler.js';
import { ToolError } from './tool-error.js';

const secrets = proxyLocalActivities<Activities>({ startToCloseTimeout: '15 seconds', retry: { maximumAttempts: 2 } });

/**
 * soai `ask_user` on the askUser capability: options or free text (answered with the user's own words), waiting one
 * hour unless the worker sets its own question timeout. At the timeout the turn goes on, told nobody answered. A secret
 * answer arrives sealed (see src/shared/sealed-answers.ts) and its result holds the sealed token, which the worker's
 * model call opens for this turn only.
 */
export async function askUserSoai(args: ToolArgs<typeof soaiAskUser>, context: ToolContext): Promise<string> {
  const secret = args.questions.filter((question) => question.secret).map((question) => question.question);
  if (secret.length > 0 && !(await secrets.secretAnswersEnabled()))
    throw new ToolError(
      `This worker takes no secret answers (it has no ARBOR_SECRET_KEY), so ${secret.map((q) => `"${q}"`).join(', ')} ` +
        'cannot be asked as secret. Ask for credentials through the vault tools, or ask without secret.',
    );
  const limitMs = timeoutMs(context.state) ?? soaiAskUserTimeoutSeconds * 1000;
  const outcome = await askAndWait(args.questions.map(asQuestion), context, { limitMs, secretQuestions: secret });
  if (!outcome.answered)
    return JSON.stringify({
      status: 'timeout',
      answers: null,
      message: `The user did not answer within ${Math.round(limitMs / 1000)} s. Continue without the answers, or ask again later.`,
    });
  return JSON.stringify({
    status: 'answered',
    answers: args.questions.map((question, index) => ({
      question: question.question,
      answer: answerOf(question, outcome.answers[index]!),
    })),
  });
}

function asQuestion(question: SoaiQuestion, index: number): Question {
  return {
    question: question.question,
    header: question.header ?? `Q${index + 1}`,
    options: question.options.map((option) => ({ label: option.label, description: option.description ?? '' })),
    multiSelect: question.multi_select,
  };
}

function answerOf(question: SoaiQuestion, answer: ResolvedAnswer): string | string[] {
  const all = answer.other !== undefined ? [...answer.selected, answer.other] : answer.selected;
  return question.multi_select ? all : (all[0] ?? '');
}
