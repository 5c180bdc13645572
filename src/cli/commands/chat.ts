import { Command } from 'commander';
import type { SessionHandle } from '../../client/session-handle.js';
import { checkSessionId } from '../../client/session-id.js';
import { createOutput } from '../output.js';
import { connectionSettingsFrom } from '../options.js';
import { ensureLocalRuntime } from '../local-runtime.js';
import { followTurn } from '../follow-turn.js';
import { createLineReader } from '../line-reader.js';
import { withClient } from '../with-client.js';
import { sessionOptionsFrom, toolModulesFrom, withSessionFlags, type SessionFlags } from './start.js';

export const chatCommand = withSessionFlags(
  new Command('chat')
    .description('talk with a session interactively (a new one, or an existing one by id); /exit or Ctrl-D ends')
    .argument('[session-id]', 'continue this session instead of starting a new one', checkSessionId),
).action(async (sessionId: string | undefined, flags: SessionFlags) => {
  const output = createOutput(false);
  const runtime = await ensureLocalRuntime(connectionSettingsFrom(flags), (line) => output.progress(line), {
    toolModules: toolModulesFrom(flags),
  });
  const lines = createLineReader();
  try {
    await withClient(runtime.settings, async (client) => {
      let session: SessionHandle | undefined = sessionId ? client.session(sessionId) : undefined;
      if (session) output.progress(`continuing session ${session.id} (${(await session.snapshot()).title})`);
      for (;;) {
        const raw = await lines.next('you> ');
        if (raw === null) break;
        const line = raw.trim();
        if (line === '/exit' || line === '/quit') break;
        if (!line) continue;
        if (!session) {
          session = await client.startSession(sessionOptionsFrom(line, flags));
          output.progress(`session ${session.id}`);
          await followTurn(session, output, { afterEvent: 0, fromEntry: 0 });
        } else {
          const before = await session.snapshot();
          const messageId = await session.send(line);
          await followTurn(session, output, {
            messageId,
            afterEvent: before.last_event_seq,
            fromEntry: before.message_count,
            pendingBefore: before.pending_questions,
          });
        }
      }
      if (session) output.progress(`session ${session.id} stays open: arbor chat ${session.id} continues it.`);
    });
  } finally {
    lines.close();
    await runtime.stop();
  }
});
