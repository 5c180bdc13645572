import { Command, InvalidArgumentError } from 'commander';
import { checkSessionId } from '../../client/session-id.js';
import { connectionSettingsFrom, withConnectionFlags, type ConnectionFlags } from '../options.js';
import { renderTreeEvent } from '../render-event.js';
import { withClient } from '../with-client.js';

interface WatchFlags extends ConnectionFlags {
  after: number;
  json?: boolean;
}

function eventNumber(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0)
    throw new InvalidArgumentError(`--after must be an event number (0 or more), got "${value}".`);
  return number;
}

export const watchCommand = withConnectionFlags(
  new Command('watch')
    .description('print the events of a session and all its sub-agents as they happen, until Ctrl-C')
    .argument('<session-id>', 'the session id (a UUID)', checkSessionId)
    .option('--after <seq>', "start after this event number of the session (its sub-agents' buffered events are all shown)", eventNumber, 0)
    .option('--json', 'print one JSON object per line: {session_id, session_title, depth, event}'),
).action(async (sessionId: string, flags: WatchFlags) => {
  const stop = new AbortController();
  const interrupt = () => stop.abort();
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  try {
    await withClient(connectionSettingsFrom(flags), async (client) => {
      const session = client.session(sessionId);
      await session.snapshot(); // a clear error for an unknown id before waiting
      const events = session.treeEvents({
        after: flags.after,
        signal: stop.signal,
        onMissed: (id, count) => process.stderr.write(`(${count} older events of session ${id} are no longer buffered)\n`),
        onError: (id, error) =>
          process.stderr.write(`(stopped reading session ${id}: ${error instanceof Error ? error.message : String(error)})\n`),
      });
      for await (const treeEvent of events) {
        if (flags.json) {
          const { session: from, event } = treeEvent;
          process.stdout.write(`${JSON.stringify({ session_id: from.id, session_title: from.title, depth: from.depth, event })}\n`);
        } else {
          for (const line of renderTreeEvent(treeEvent, { showUserMessages: true }))
            process.stdout.write(`${String(treeEvent.event.seq).padStart(4)} ${line}\n`);
        }
      }
    });
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
});
