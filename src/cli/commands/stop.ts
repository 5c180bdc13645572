import { Command } from 'commander';
import { checkSessionId } from '../../client/session-id.js';
import { createOutput } from '../output.js';
import { connectionSettingsFrom, withConnectionFlags, type ConnectionFlags } from '../options.js';
import { withClient } from '../with-client.js';

interface StopFlags extends ConnectionFlags {
  json?: boolean;
}

export const stopCommand = withConnectionFlags(
  new Command('stop')
    .description('stop a session and all its sub-agents, leaves first (Temporal cancellation)')
    .argument('<session-id>', 'the session id (or a unique start of it)', checkSessionId)
    .option('--json', 'print one JSON object'),
).action(async (sessionId: string, flags: StopFlags) => {
  const output = createOutput(Boolean(flags.json));
  await withClient(connectionSettingsFrom(flags), async (client) => {
    sessionId = (await client.findSession(sessionId)).id;
    const stopped = await client.session(sessionId).stop();
    output.result(
      stopped,
      [
        `stopped ${stopped.total_stopped} session(s), in this order:`,
        ...stopped.stopped_sessions.map((entry) => `  ${entry.sub_session_id}  ${entry.title}`),
      ].join('\n'),
    );
  });
});
