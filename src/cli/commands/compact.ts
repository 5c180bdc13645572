import { Command } from 'commander';
import { checkSessionId } from '../../client/session-id.js';
import { createOutput } from '../output.js';
import { connectionSettingsFrom, withConnectionFlags, type ConnectionFlags } from '../options.js';
import { withClient } from '../with-client.js';

interface CompactFlags extends ConnectionFlags {
  json?: boolean;
}

export const compactCommand = withConnectionFlags(
  new Command('compact')
    .description("replace a session's older entries with a summary written by the model, keeping its newest turn (between turns only)")
    .argument('<session-id>', 'the session id (or a unique start of it)', checkSessionId)
    .option('--json', 'print one JSON object'),
).action(async (sessionId: string, flags: CompactFlags) => {
  const output = createOutput(Boolean(flags.json));
  await withClient(connectionSettingsFrom(flags), async (client) => {
    const session = await client.findSession(sessionId);
    const receipt = await session.compact();
    if (receipt.outcome === 'failed') {
      output.result({ session_id: session.id, ...receipt }, `${session.id} not compacted: ${receipt.reason}`);
      process.exitCode = 1;
      return;
    }
    output.result(
      { session_id: session.id, ...receipt },
      `${session.id} compacted: ${receipt.entries} earlier entries are replaced by summary entry ${receipt.summary_entry_id}`,
    );
  });
});
