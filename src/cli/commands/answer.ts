import { Command, InvalidArgumentError } from 'commander';
import { answerText, type Answers } from '../../shared/answers.js';
import { checkSessionId } from '../../client/session-id.js';
import type { AnswerReceipt } from '../../shared/questions.js';
import { askOnTerminal, canPrompt } from '../ask-questions.js';
import { createOutput } from '../output.js';
import { connectionSettingsFrom, withConnectionFlags, type ConnectionFlags } from '../options.js';
import { howToAnswer } from '../render-event.js';
import { Interrupted, UsageError } from '../usage-error.js';
import { answerTerms, inFlagTerms } from '../flag-terms.js';
import { withClient } from '../with-client.js';

interface AnswerFlags extends ConnectionFlags {
  answers?: Record<string, unknown>;
  set?: string;
  json?: boolean;
}

function answersJson(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new InvalidArgumentError(`--answers is not valid JSON (${(error as Error).message}).`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new InvalidArgumentError('--answers must be a JSON object: {"<question>": "<label>" | ["<label>", ...] | {"other": "<text>"}}.');
  }
  return parsed as Record<string, unknown>;
}

export const answerCommand = withConnectionFlags(
  new Command('answer')
    .description(
      'answer questions a session (or any sub-agent below it) asked with askUser; on a terminal without --answers, pick the answers',
    )
    .argument('<session-id>', 'the root session, or the session that asked (its id, or a unique start of it)', checkSessionId)
    .option(
      '--answers <json>',
      'JSON object: question text -> a label, a list of labels, or {"other": "your own words"} (on a terminal, leave it out to pick)',
      answersJson,
    )
    .option('--set <question-set-id>', 'which question set (needed only when several wait)')
    .option('--json', 'print one JSON object'),
).action(async (sessionId: string, flags: AnswerFlags) => {
  const output = createOutput(Boolean(flags.json));
  const print = (receipt: AnswerReceipt) =>
    output.result(
      receipt,
      `answered question set ${receipt.question_set_id} of session ${receipt.session_id}: ` +
        receipt.answers.map((answer) => `"${answer.question}"="${answerText(answer)}"`).join(', '),
    );
  await withClient(connectionSettingsFrom(flags), (client) =>
    inFlagTerms(answerTerms, async () => {
      sessionId = (await client.findSession(sessionId)).id;
      const session = client.session(sessionId);
      if (flags.answers) {
        print(await session.answer(flags.answers as never, flags.set ? { questionSetId: flags.set } : {}));
        return;
      }
      const pending = (await session.pendingQuestions()).filter((set) => !flags.set || set.question_set_id === flags.set);
      if (pending.length === 0) {
        throw new UsageError(
          flags.set ? `No question set ${flags.set} waits in session ${sessionId}.` : `No questions are waiting in session ${sessionId}.`,
        );
      }
      if (!canPrompt()) {
        throw new UsageError(`--answers is needed when not on a terminal. ${pending.map((set) => howToAnswer(set, sessionId)).join('\n')}`);
      }
      for (const set of pending) {
        process.stderr.write(`"${set.session_title}" asks (question set ${set.question_set_id}):\n`);
        let answers: Answers;
        try {
          answers = await askOnTerminal(set);
        } catch (error) {
          if (error instanceof Error && error.name === 'ExitPromptError') throw new Interrupted('interrupted at a question');
          throw error;
        }
        print(await session.answer(answers, { questionSetId: set.question_set_id }));
      }
    }),
  );
});
