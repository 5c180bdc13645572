import { Command } from 'commander';
import { checkSessionId } from '../../client/session-id.js';
import { createOutput } from '../output.js';
import { connectionSettingsFrom, withConnectionFlags, type ConnectionFlags } from '../options.js';
import { renderSnapshot } from '../render.js';
import { memberNode, readTreeMembers } from '../tree-members.js';
import { treeViewLink, webUiBase } from '../web-ui-link.js';
import { withClient } from '../with-client.js';
import { transcriptLine } from '../transcript-line.js';

interface ShowFlags extends ConnectionFlags {
  json?: boolean;
  transcript?: boolean;
}

export const showCommand = withConnectionFlags(
  new Command('show')
    .description(
      "print a session's snapshot, its sub-agents at every depth as each tells it, a Web UI link to its tree (and with --transcript its whole transcript)",
    )
    .argument('<session-id>', 'the session id (or a unique start of it)', checkSessionId)
    .option('--transcript', 'include the transcript')
    .option('--json', 'print one JSON object'),
).action(async (sessionId: string, flags: ShowFlags) => {
  const output = createOutput(Boolean(flags.json));
  const settings = connectionSettingsFrom(flags);
  await withClient(settings, async (client) => {
    sessionId = (await client.findSession(sessionId)).id;
    const session = client.session(sessionId);
    const snapshot = await session.snapshot();
    const members = await readTreeMembers(client, sessionId, 0, snapshot);
    const base = webUiBase(settings);
    const webUi = base ? treeViewLink(base, settings.namespace, snapshot.root_session_id) : null;
    // An ended workflow's status is how it ended (as `arbor list` says), and it waits for nothing.
    const shown = members.ended ? { ...snapshot, status: members.ended, waiting: null, pending_questions: [] } : snapshot;
    const data = { ...shown, sub_agents: members.children.map(memberNode), web_ui: webUi };
    const text = renderSnapshot(snapshot, { members, ...(webUi ? { webUi } : {}) });
    if (!flags.transcript) {
      output.result(data, text);
      return;
    }
    const transcript = await session.transcript();
    output.result({ ...data, transcript }, [text, 'transcript', ...transcript.map(transcriptLine)].join('\n'));
  });
});
