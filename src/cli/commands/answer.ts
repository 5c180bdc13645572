import { Command, InvalidArgumentError } from 'commander';
import { answerText } from '../../shared/answers.js';
import { checkSessionId } from '../../client/session-id.js';
import { createOutput } from '../output.js';
import { connectionSettingsFrom, withConnectionFlags, type ConnectionFlags } from '../options.js';
import { withClient } from '../with-client.js';

interface AnswerFlags extends ConnectionFlags {
  answers: Record<string, unknown>;
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
    .description('answer questions a session (or any sub-agent below it) asked with askUser')
    .argument('<session-id>', 'the root session, or the session that asked (a UUID)', checkSessionId)
    .requiredOption(
      '--answers <json>',
      'JSON object: question text -> a label, a list of labels, or {"other": "your own words"}',
      answersJson,
    )
    .option('--set <question-set-id>', 'which question set (needed only when several wait)')
    .option('--json', 'print one JSON object'),
).action(async (sessionId: string, flags: AnswerFlags) => {
  const output = createOutput(Boolean(flags.json));
  await withClient(connectionSettingsFrom(flags), async (client) => {
    const receipt = await client.session(sessionId).answer(flags.answers as never, flags.set ? { questionSetId: flags.set } : {});
    output.result(
      receipt,
      `answered question set ${receipt.question_set_id} of session ${receipt.session_id}: ` +
        receipt.answers.map((answer) => `"${answer.question}"="${answerText(answer)}"`).join(', '),
    );
  });
});
