import type { AnswerChoice, Answers } from '../shared/answers.js';
import type { QuestionSet } from '../shared/tools/ask-user.js';
import { denyLabel } from '../shared/approvals.js';

const other: unique symbol = Symbol('other');
type Pick = string | typeof other;

/** Asks a question set on the terminal: one choice per question (checkboxes for multi-select) plus "Other" for free text. */
export async function askOnTerminal(set: QuestionSet, signal?: AbortSignal): Promise<Answers> {
  // Loaded when a question is asked, not with every command.
  const { checkbox, input, password, select } = await import('@inquirer/prompts');
  const context = { input: process.stdin, output: process.stderr, ...(signal ? { signal } : {}) };
  const answers: Answers = {};
  for (const question of set.questions) {
    const message = `[${question.header}] ${question.question}`;
    if (question.options.length === 0) {
      // Free text (soai ask_user); a secret is typed masked, and the SDK seals it before it leaves this process.
      const secret = set.secret_questions?.includes(question.question) === true;
      answers[question.question] = secret
        ? await password({ message: `${message} (secret)`, mask: '*' }, context)
        : await input({ message, required: true }, context);
      continue;
    }
    const choices: { value: Pick; name: string; description: string }[] = [
      ...question.options.map((option) => ({
        value: option.label,
        name: option.label,
        description: option.preview ? `${option.description}\n\n${option.preview}` : option.description,
      })),
      { value: other, name: 'Other', description: 'Answer in your own words' },
    ];
    let picked: Pick[];
    if (question.multiSelect) {
      picked = await checkbox({ message, choices, required: true }, context);
    } else {
      picked = [await select({ message, choices }, context)];
    }
    const chosen: AnswerChoice[] = picked.filter((value): value is string => value !== other);
    if (picked.includes(other)) {
      const text = await input({ message: `${question.header}: your answer`, required: true }, context);
      chosen.push({ other: text });
    } else if (set.approval && picked.includes(denyLabel)) {
      // A denial may say why; the model reads the reason with it.
      const reason = await input({ message: `${question.header}: why (optional, the model reads it)` }, context);
      if (reason.trim()) return { [question.question]: [denyLabel, { other: reason.trim() }] };
    }
    answers[question.question] = question.multiSelect ? chosen : chosen[0]!;
  }
  return answers;
}

/** Whether questions can be asked here: a person at a terminal on both ends. */
export function canPrompt(): boolean {
  return Boolean(process.stdin.isTTY && process.stderr.isTTY);
}
