import { createInterface } from 'node:readline';
import { Command } from 'commander';
import type { SessionHandle } from '../../session-handle.js';
import { checkSessionId } from '../../client.js';
import { createOutput } from '../output.js';
import { connectionSettingsFrom } from '../options.js';
import { ensureLocalRuntime } from '../local-runtime.js';
import { waitForAnswer } from '../wait-for-answer.js';
import { withClient } from '../with-client.js';
import { sessionOptionsFrom, withSessionFlags, type SessionFlags } from './start.js';

export const chatCommand = withSessionFlags(
  new Command('chat')
    .description('talk with a session interactively (a new one, or an existing one by id); /exit or Ctrl-D ends')
    .argument('[session-id]', 'continue this session instead of starting a new one', checkSessionId),
).action(async (sessionId: string | undefined, flags: SessionFlags) => {
  const output = createOutput(false);
  const runtime = await ensureLocalRuntime(connectionSettingsFrom(flags), (line) => output.progress(line));
  const input = createInterface({ input: process.stdin, output: process.stdout, terminal: Boolean(process.stdin.isTTY) });
  input.setPrompt('you> ');
  // Take lines from the start: what is typed (or piped) while a turn runs is buffered, not lost.
  const lines = input[Symbol.asyncIterator]();
  try {
    await withClient(runtime.settings, async (client) => {
      let session: SessionHandle | undefined = sessionId ? client.session(sessionId) : undefined;
      if (session) output.progress(`continuing session ${session.id} (${(await session.snapshot()).title})`);
      input.prompt();
      for await (const raw of { [Symbol.asyncIterator]: () => lines }) {
        const line = raw.trim();
        if (line === '/exit' || line === '/quit') break;
        if (line) {
          if (!session) {
            session = await client.startSession(sessionOptionsFrom(line, flags));
            output.progress(`session ${session.id}`);
            await waitForAnswer(session, output, { fromEntry: 0 });
          } else {
            const fromEntry = (await session.snapshot()).message_count;
            const messageId = await session.send(line);
            await waitForAnswer(session, output, { messageId, fromEntry });
          }
        }
        input.prompt();
      }
      if (session) output.progress(`session ${session.id} stays open: arbor chat ${session.id} continues it.`);
    });
  } finally {
    input.close();
    await runtime.stop();
  }
});
