import { Command } from 'commander';
import { checkSessionId } from '../../client/session-id.js';
import { createOutput } from '../output.js';
import { connectionSettingsFrom, nonEmptyText, positiveInteger, withConnectionFlags, type ConnectionFlags } from '../options.js';
import { inFlagTerms, sendTerms } from '../flag-terms.js';
import { withClient } from '../with-client.js';
import { followTurn } from '../follow-turn.js';
import { UsageError } from '../usage-error.js';
import type { DeliveryMode } from '../../shared/delivery-modes.js';

interface SendFlags extends ConnectionFlags {
  wait?: boolean;
  timeout?: number;
  json?: boolean;
  stream: boolean;
  steer?: boolean;
  interrupt?: boolean;
  stopSubAgents?: boolean;
}

export const sendCommand = withConnectionFlags(
  new Command('send')
    .description('send a message to a session')
    .argument('<session-id>', 'the session id (or a unique start of it)', checkSessionId)
    .argument('<message>', 'the message', nonEmptyText('The message'))
    .option('--wait', 'wait for the turn to end and print the answer')
    .option('--timeout <seconds>', 'with --wait, give up after this many seconds', positiveInteger('--timeout'))
    .option('--no-stream', 'with --wait, print the answer only once it is complete, not as it is written')
    .option('--steer', 'deliver into the running turn, at its next model call (default: wait for the turn to end)')
    .option('--interrupt', 'cancel the running turn and start a new one with this message')
    .option('--stop-sub-agents', "with --interrupt, also stop the session's running sub-agents")
    .option('--json', 'print one JSON object'),
).action(async (sessionId: string, message: string, flags: SendFlags) => {
  const output = createOutput(Boolean(flags.json));
  const mode = deliveryMode(flags);
  await withClient(connectionSettingsFrom(flags), (client) =>
    inFlagTerms(sendTerms, async () => {
      sessionId = (await client.findSession(sessionId)).id;
      const session = client.session(sessionId);
      const before = flags.wait ? await session.snapshot() : undefined;
      const messageId = await session.send(message, { mode, ...(flags.stopSubAgents ? { stopSubAgents: true } : {}) });
      if (!before) {
        output.result({ session_id: session.id, message_id: messageId }, `sent ${messageId}`);
        return;
      }
      await followTurn(session, output, {
        messageId,
        afterEvent: before.last_event_seq,
        fromEntry: before.message_count,
        pendingBefore: before.pending_questions,
        timeoutSeconds: flags.timeout,
        stream: flags.stream,
        afterTurn: before.turn,
      });
    }),
  );
});

/** The delivery mode the flags ask for; conflicting flags are a usage error. */
function deliveryMode(flags: SendFlags): DeliveryMode {
  if (flags.steer && flags.interrupt) throw new UsageError('--steer and --interrupt cannot go together: choose one.');
  if (flags.stopSubAgents && !flags.interrupt) throw new UsageError('--stop-sub-agents goes with --interrupt only.');
  return flags.interrupt ? 'interrupt' : flags.steer ? 'steer' : 'queue';
}
