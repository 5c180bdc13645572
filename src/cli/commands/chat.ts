import { chatTerms, inFlagTerms } from '../flag-terms.js';
import { Command } from 'commander';
import type { ArborClient } from '../../client/arbor-client.js';
import type { SessionHandle } from '../../client/session-handle.js';
import { checkSessionId } from '../../client/session-id.js';
import { closedStatuses } from '../../shared/session.js';
import { canPrompt } from '../ask-questions.js';
import { pickSessionToResume } from '../chat-picker.js';
import { createOutput, type Output } from '../output.js';
import { connectionSettingsFrom } from '../options.js';
import { ensureLocalRuntime } from '../local-runtime.js';
import { followTurn, type FollowOptions } from '../follow-turn.js';
import { createLineReader, type LineReader } from '../line-reader.js';
import { listenForEscape } from '../escape-key.js';
import { ArborClientError } from '../../client/errors.js';
import { howToAnswer } from '../render-event.js';
import { UsageError } from '../usage-error.js';
import { withClient } from '../with-client.js';
import { sessionOptionsFrom, toolModulesFrom, withSessionFlags, type SessionFlags } from './start.js';

const leaving = '/exit or Ctrl-D leaves (the session stays open), /help lists the commands';

const helpText = [
  'commands (anything else is a message to the session):',
  '  /help          this list',
  '  /exit, /quit   leave; the session stays open, and arbor chat <id> continues it',
  '  //text         send a message that begins with "/text"',
  '  Esc            while a turn runs: interrupt it with a message of yours (an empty line lets it go on)',
].join('\n');

export const chatCommand = withSessionFlags(
  new Command('chat')
    .description('talk with a session interactively (a new one, or an existing one by id); /exit or Ctrl-D ends')
    .argument(
      '[session-id]',
      'continue this session instead of starting a new one (on a terminal, without one: pick a recent one)',
      checkSessionId,
    ),
)
  .option('--no-stream', 'print each answer only once it is complete, not as it is written')
  .action(async (sessionId: string | undefined, flags: SessionFlags & { stream: boolean }) => {
    const output = createOutput(false);
    const runtime = await ensureLocalRuntime(connectionSettingsFrom(flags), (line) => output.progress(line), {
      toolModules: toolModulesFrom(flags),
    });
    const lines = createLineReader();
    try {
      await withClient(runtime.settings, (client) =>
        inFlagTerms(chatTerms, async () => {
          const resumeId = sessionId ?? (canPrompt() ? await pickSessionToResume(client, flags.owner) : undefined);
          let session: SessionHandle | undefined = resumeId ? await resume(client, resumeId, output, flags.stream) : undefined;
          if (!session) output.progress(`arbor chat: a new session, model ${flags.model ?? "the worker's default"}. ${leaving}.`);
          for (;;) {
            const raw = await lines.next('you> ');
            if (raw === null) break;
            const line = raw.trim();
            if (line === '/exit' || line === '/quit') break;
            if (!line) continue;
            if (line === '/help') {
              output.progress(helpText);
              continue;
            }
            if (line.startsWith('/') && !line.startsWith('//')) {
              output.progress(
                `Unknown command ${line.split(/\s/)[0]}: /help lists the commands (start with // to send a message beginning with /).`,
              );
              continue;
            }
            const message = line.startsWith('//') ? line.slice(1) : line;
            if (!session) {
              session = await client.startSession(sessionOptionsFrom(message, flags));
              output.progress(`session ${session.id}`);
              await followInterruptibly(session, output, lines, { afterEvent: 0, fromEntry: 0, stream: flags.stream });
            } else {
              const before = await session.snapshot();
              if (closedStatuses.includes(before.status)) {
                output.progress(
                  `Session ${session.id} has ended (${before.status}) and takes no more messages; arbor chat starts a new one.`,
                );
                break;
              }
              const messageId = await session.send(message);
              await followInterruptibly(session, output, lines, {
                messageId,
                afterEvent: before.last_event_seq,
                fromEntry: before.message_count,
                pendingBefore: before.pending_questions,
                stream: flags.stream,
                afterTurn: before.turn,
              });
            }
          }
          if (session) output.progress(`session ${session.id} stays open: arbor chat ${session.id} continues it.`);
        }),
      );
    } finally {
      lines.close();
      await runtime.stop();
    }
  });

/**
 * Follows a turn. On a terminal, Esc stops following and asks for the message that interrupts the turn: it is sent
 * with mode `interrupt` (or queued, when the turn ended meanwhile), and the new turn is followed; an empty line
 * follows the turn on.
 */
async function followInterruptibly(session: SessionHandle, output: Output, lines: LineReader, options: FollowOptions): Promise<void> {
  let follow = options;
  for (;;) {
    const leave = new AbortController();
    const stopListening = canPrompt() ? listenForEscape(() => leave.abort()) : () => {};
    try {
      await followTurn(session, output, { ...follow, leave: leave.signal });
    } finally {
      stopListening();
    }
    if (!leave.signal.aborted) return;
    const before = await session.snapshot();
    // Clears what the terminal may have echoed of the key.
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
    output.progress('interrupt: the message the new turn starts with (an empty line lets the turn go on)');
    const text = (await lines.next('interrupt> '))?.trim();
    const shownTo = { afterEvent: before.last_event_seq, pendingBefore: before.pending_questions };
    if (!text) {
      follow = { ...follow, ...shownTo };
      continue;
    }
    const messageId = await sendInterrupt(session, text);
    follow = { ...shownTo, messageId, fromEntry: before.message_count, stream: options.stream, afterTurn: before.turn };
  }
}

async function sendInterrupt(session: SessionHandle, text: string): Promise<string> {
  try {
    return await session.send(text, { mode: 'interrupt' });
  } catch (error) {
    // The turn ended while the message was typed: it starts the next turn instead.
    if (error instanceof ArborClientError && /is not running a turn|was not started interruptible/.test(error.message))
      return session.send(text);
    throw error;
  }
}

/**
 * Continues a session: refuses one that has ended, says what it is and runs on, then follows a turn under way and
 * asks questions already waiting (on a terminal; elsewhere it prints how to answer them) before the first prompt.
 */
async function resume(client: ArborClient, sessionId: string, output: Output, stream: boolean): Promise<SessionHandle> {
  const session = await client.findSession(sessionId);
  const snapshot = await session.snapshot();
  if (closedStatuses.includes(snapshot.status)) {
    throw new UsageError(
      `Session ${session.id} ("${snapshot.title}") has ended (${snapshot.status}) and takes no more messages; arbor chat starts a new one.`,
    );
  }
  output.progress(`continuing session ${session.id} (${snapshot.title}), model ${snapshot.model}, ${snapshot.status}. ${leaving}.`);
  const busy = snapshot.status === 'running' || snapshot.queued_messages > 0;
  if (busy || (snapshot.pending_questions.length > 0 && canPrompt())) {
    if (busy) output.progress('a turn is under way; its answer follows.');
    await followTurn(session, output, {
      afterEvent: snapshot.last_event_seq,
      fromEntry: snapshot.message_count,
      pendingBefore: snapshot.pending_questions,
      stream,
      // The turn under way is shown from what the session still holds of it.
      afterTurn: snapshot.status === 'running' ? snapshot.turn - 1 : snapshot.turn,
    });
  } else {
    for (const set of snapshot.pending_questions) output.progress(howToAnswer(set, session.id));
  }
  return session;
}
