import { Command } from 'commander';
import { checkSessionId } from '../../client/session-id.js';
import { createOutput } from '../output.js';
import { connectionSettingsFrom, withConnectionFlags, type ConnectionFlags } from '../options.js';
import { memberNode, readTreeMembers, renderMemberTree } from '../tree-members.js';
import { withClient } from '../with-client.js';

interface TreeFlags extends ConnectionFlags {
  json?: boolean;
}

export const treeCommand = withConnectionFlags(
  new Command('tree')
    .description('print a session and its sub-agents at every depth, with id, title, status (as each session tells it) and mode')
    .argument('<session-id>', 'the session id (or a unique start of it)', checkSessionId)
    .option('--json', 'print one JSON object'),
).action(async (sessionId: string, flags: TreeFlags) => {
  const output = createOutput(Boolean(flags.json));
  await withClient(connectionSettingsFrom(flags), async (client) => {
    sessionId = (await client.findSession(sessionId)).id;
    const members = await readTreeMembers(client, sessionId);
    output.result(memberNode(members), renderMemberTree(members).join('\n'));
  });
});
