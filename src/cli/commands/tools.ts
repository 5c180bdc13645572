import { Command } from 'commander';
import { checkSessionId } from '../../client/session-id.js';
import { createOutput } from '../output.js';
import { connectionSettingsFrom, withConnectionFlags, type ConnectionFlags } from '../options.js';
import { readSessionTools, renderSessionTools } from '../session-tools.js';
import { withClient } from '../with-client.js';

interface ToolsFlags extends ConnectionFlags {
  json?: boolean;
}

export const toolsCommand = withConnectionFlags(
  new Command('tools')
    .description(
      'list the tools a session may call: built-in, host, remote and MCP (with server and tool), which ask for approval, which are destructive',
    )
    .argument('<session-id>', 'the session id (or a unique start of it)', checkSessionId)
    .option('--json', 'print one JSON object'),
).action(async (sessionId: string, flags: ToolsFlags) => {
  const output = createOutput(Boolean(flags.json));
  await withClient(connectionSettingsFrom(flags), async (client) => {
    sessionId = (await client.findSession(sessionId)).id;
    const tools = await readSessionTools(client.temporal, sessionId);
    output.result({ session_id: sessionId, tools }, renderSessionTools(tools));
  });
});
