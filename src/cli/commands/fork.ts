import { Command } from 'commander';
import { checkSessionId } from '../../client/session-id.js';
import { forkTree } from '../../client/fork/fork-tree.js';
import { createOutput } from '../output.js';
import { connectionSettingsFrom, positiveInteger, withConnectionFlags, type ConnectionFlags } from '../options.js';
import { withClient } from '../with-client.js';

interface ForkFlags extends ConnectionFlags {
  at?: number;
  json?: boolean;
}

export const forkCommand = withConnectionFlags(
  new Command('fork')
    .description(
      'start a new session (and tree) with the state a session had at a transcript position, which then goes its own way; the source is only read',
    )
    .argument('<session-id>', 'the session id (or a unique start of it)', checkSessionId)
    .option(
      '--at <position>',
      'the transcript position (entries) where a turn ended (default: the latest turn end)',
      positiveInteger('--at'),
    )
    .option('--json', 'print one JSON object'),
).action(async (sessionId: string, flags: ForkFlags) => {
  const output = createOutput(Boolean(flags.json));
  await withClient(connectionSettingsFrom(flags), async (client) => {
    const source = await client.findSession(sessionId);
    const fork = await forkTree(client.temporal, source.id, flags.at);
    const lines = [
      `${fork.session_id} forked from ${source.id} at position ${fork.position}`,
      ...fork.members
        .slice(1)
        .map((member) =>
          member.position === 0
            ? `  sub-agent ${member.session_id}: ${member.source_session_id} started again from its instruction`
            : `  sub-agent ${member.session_id}: ${member.source_session_id} at position ${member.position}`,
        ),
    ];
    output.result({ ...fork, source_session_id: source.id }, lines.join('\n'));
  });
});
