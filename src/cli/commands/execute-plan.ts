import { Command } from 'commander';
import { checkSessionId } from '../../client/session-id.js';
import { createOutput } from '../output.js';
import { connectionSettingsFrom, nonEmptyText, positiveInteger, withConnectionFlags, type ConnectionFlags } from '../options.js';
import { withClient } from '../with-client.js';
import { followTurn } from '../follow-turn.js';
import { executePlanTerms, inFlagTerms } from '../flag-terms.js';

interface ExecutePlanFlags extends ConnectionFlags {
  message?: string;
  wait?: boolean;
  timeout?: number;
  json?: boolean;
}

export const executePlanCommand = withConnectionFlags(
  new Command('execute-plan')
    .description('switch a session in Plan mode to Execute mode and tell the agent to implement its plan')
    .argument('<session-id>', 'the session id (or a unique start of it)', checkSessionId)
    .option('--message <text>', 'your words added to the message (how to carry the plan out)', nonEmptyText('The message'))
    .option('--wait', 'wait for the turn that implements the plan to end and print the answer')
    .option('--timeout <seconds>', 'with --wait, give up after this many seconds', positiveInteger('--timeout'))
    .option('--json', 'print one JSON object'),
).action(async (sessionId: string, flags: ExecutePlanFlags) => {
  const output = createOutput(Boolean(flags.json));
  await withClient(connectionSettingsFrom(flags), async (client) => {
    const session = await client.findSession(sessionId);
    const before = flags.wait ? await session.snapshot() : undefined;
    const messageId = await inFlagTerms(executePlanTerms, () => session.executePlan(flags.message ? { message: flags.message } : {}));
    if (!before) {
      output.result(
        { session_id: session.id, work_mode: 'execute', message_id: messageId },
        `${session.id} is in Execute mode; sent ${messageId}`,
      );
      return;
    }
    await followTurn(session, output, {
      messageId,
      afterEvent: before.last_event_seq,
      fromEntry: before.message_count,
      pendingBefore: before.pending_questions,
      timeoutSeconds: flags.timeout,
    });
  });
});
