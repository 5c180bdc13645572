import { Command } from 'commander';
import { checkSessionId } from '../../client/session-id.js';
import { createOutput } from '../output.js';
import { connectionSettingsFrom, withConnectionFlags, type ConnectionFlags } from '../options.js';
import { renderSnapshot } from '../render.js';
import { withClient } from '../with-client.js';

interface ShowFlags extends ConnectionFlags {
  json?: boolean;
  transcript?: boolean;
}

export const showCommand = withConnectionFlags(
  new Command('show')
    .description("print a session's snapshot (and with --transcript its whole transcript)")
    .argument('<session-id>', 'the session id (a UUID)', checkSessionId)
    .option('--transcript', 'include the transcript')
    .option('--json', 'print one JSON object'),
).action(async (sessionId: string, flags: ShowFlags) => {
  const output = createOutput(Boolean(flags.json));
  await withClient(connectionSettingsFrom(flags), async (client) => {
    const session = client.session(sessionId);
    const snapshot = await session.snapshot();
    if (!flags.transcript) {
      output.result(snapshot, renderSnapshot(snapshot));
      return;
    }
    const transcript = await session.transcript();
    const text = [
      renderSnapshot(snapshot),
      'transcript',
      ...transcript.map((entry) => `  [${entry.role}${entry.name ? ` ${entry.name}` : ''}] ${entry.content}`),
    ].join('\n');
    output.result({ ...snapshot, transcript }, text);
  });
});
