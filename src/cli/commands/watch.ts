import { Command, InvalidArgumentError } from 'commander';
import type { ArborClient } from '../../client/arbor-client.js';
import type { SessionTreeNode } from '../../client/access/session-tree.js';
import type { TreeEvent } from '../../client/events/tree-events.js';
import { checkSessionId } from '../../client/session-id.js';
import { connectionSettingsFrom, withConnectionFlags, type ConnectionFlags } from '../options.js';
import { createWatchLines, inTimeOrder } from '../watch-lines.js';
import { withClient } from '../with-client.js';
import type { SessionHandle } from '../../client/session-handle.js';
import { startLiveText, type LiveText } from '../live-text.js';

interface WatchFlags extends ConnectionFlags {
  after: number;
  json?: boolean;
  deltas?: boolean;
}

function eventNumber(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0)
    throw new InvalidArgumentError(`--after must be an event number (0 or more), got "${value}".`);
  return number;
}

export const watchCommand = withConnectionFlags(
  new Command('watch')
    .description('print the events of a session and all its sub-agents as they happen, until the whole tree has ended or Ctrl-C')
    .argument('<session-id>', 'the session id (or a unique start of it)', checkSessionId)
    .option('--after <seq>', "start after this event number of the session (its sub-agents' buffered events are all shown)", eventNumber, 0)
    .option('--deltas', "also print the models' text as it is written (with --json: {session_id, session_title, depth, delta} lines)")
    .option('--json', 'print one JSON object per line: {session_id, session_title, depth, event}'),
).action(async (sessionId: string, flags: WatchFlags) => {
  const stop = new AbortController();
  const interrupt = () => stop.abort();
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  const linesOf = createWatchLines();
  let live: LiveText | undefined;
  const print = (treeEvent: TreeEvent) => {
    live?.endLine();
    if (flags.json) {
      const { session: from, event } = treeEvent;
      process.stdout.write(`${JSON.stringify({ session_id: from.id, session_title: from.title, depth: from.depth, event })}\n`);
    } else {
      for (const line of linesOf(treeEvent)) process.stdout.write(`${line}\n`);
    }
    live?.eventShown(treeEvent.session.id, treeEvent.event);
  };
  const missed = (id: string, count: number) => process.stderr.write(`(${count} older events of session ${id} are no longer buffered)\n`);
  try {
    await withClient(connectionSettingsFrom(flags), async (client) => {
      sessionId = (await client.findSession(sessionId)).id;
      const session = client.session(sessionId);
      if (flags.deltas) live = flags.json ? jsonDeltas(session, stop.signal) : startLiveText(session, { afterTurn: 0 });
      // What the tree buffers already, across all its sessions in time order; then what happens, as it happens.
      const shown = new Map<string, number>();
      for (const treeEvent of inTimeOrder(await backlog(client, await session.tree(), flags.after, missed))) {
        shown.set(treeEvent.session.id, treeEvent.event.seq);
        print(treeEvent);
      }
      const events = session.treeEvents({
        after: Math.max(flags.after, shown.get(sessionId) ?? 0),
        signal: stop.signal,
        onError: (id, error) =>
          process.stderr.write(`(stopped reading session ${id}: ${error instanceof Error ? error.message : String(error)})\n`),
      });
      for await (const treeEvent of events) {
        if (treeEvent.event.seq <= (shown.get(treeEvent.session.id) ?? 0)) continue;
        shown.set(treeEvent.session.id, treeEvent.event.seq);
        print(treeEvent);
      }
      if (!stop.signal.aborted) process.stderr.write(`(every session of the tree of ${sessionId} has ended)\n`);
    });
  } finally {
    await live?.stop();
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
});

/** The tree's stream items as JSON lines, for `--deltas --json`. */
function jsonDeltas(session: SessionHandle, signal: AbortSignal): LiveText {
  const stop = new AbortController();
  signal.addEventListener('abort', () => stop.abort(), { once: true });
  const reading = (async () => {
    try {
      for await (const { item, session: from } of session.streamTree({ from: 0, signal: stop.signal })) {
        process.stdout.write(`${JSON.stringify({ session_id: from.id, session_title: from.title, depth: from.depth, delta: item })}\n`);
      }
    } catch {
      // The events go on without their deltas.
    }
  })();
  return {
    streamed: () => false,
    lastRootText: () => undefined,
    eventShown: () => {},
    endLine: () => {},
    async stop() {
      stop.abort();
      await reading;
    },
  };
}

async function backlog(
  client: ArborClient,
  root: SessionTreeNode,
  after: number,
  missed: (id: string, count: number) => void,
): Promise<TreeEvent[]> {
  const members: { node: SessionTreeNode; depth: number }[] = [];
  const walk = (node: SessionTreeNode, depth: number) => {
    members.push({ node, depth });
    for (const child of node.children) walk(child, depth + 1);
  };
  walk(root, 0);
  const read = async ({ node, depth }: { node: SessionTreeNode; depth: number }) => {
    const found: TreeEvent[] = [];
    const session = { id: node.session_id, title: node.title, depth };
    const events = client.session(node.session_id).events({
      after: depth === 0 ? after : 0,
      follow: false,
      onMissed: (count) => missed(node.session_id, count),
    });
    for await (const event of events) found.push({ event, session });
    return found;
  };
  return (await Promise.all(members.map(read))).flat();
}
