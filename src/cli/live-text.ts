import type { SessionHandle } from '../client/session-handle.js';
import type { TreeStreamItem } from '../client/events/tree-stream.js';
import type { SessionEvent } from '../shared/events.js';
import { ToolLineGate } from './tool-line-gate.js';

export interface LiveText {
  /**
   * Whether this text of the session (an assistant message, whole, or cut short with `truncated`) was shown as it was
   * written: the text of one of its model calls, not just any of its text, so a message of a turn shown otherwise (an
   * earlier turn's) is still printed.
   */
  streamed(sessionId: string, text: string, truncated?: boolean): boolean;
  /** The root's newest streamed text of a round (the answer, when it is the turn's last round). */
  lastRootText(): string | undefined;
  /** The event reader printed this event's lines: text written after a tool call's result may follow it now. */
  eventShown(sessionId: string, event: SessionEvent): void;
  /** Ends a line left open, so what follows starts on its own line. */
  endLine(): void;
  stop(): Promise<void>;
}

/** How long `stop()` lets the readers read what the tree's sessions hold before it stops them. */
const finishReadingMs = 10_000;

/**
 * Prints what the model writes in a session's tree as it is written, on stdout: the root's text as it comes, a
 * sub-agent's with its title before each line. A retried model call is announced on stderr and its text starts on
 * a new line. Turns up to `afterTurn` of the root are someone else's (the command reads from before its message).
 * A round's text follows the lines of the tool calls before it (ToolLineGate), which the event reader prints.
 */
export function startLiveText(
  session: SessionHandle,
  options: { afterTurn: number; write?: (text: string) => void; toolLineWaitMs?: number },
): LiveText {
  const write = options.write ?? ((text: string) => void process.stdout.write(text));
  const stop = new AbortController();
  const finish = new AbortController();
  /** The text shown of each model call attempt, by session. */
  const shown = new Map<string, Map<string, string>>();
  let owner: string | undefined;
  let atLineStart = true;
  let rootRound: string | undefined;
  let rootText = '';
  const endLine = () => {
    if (!atLineStart) write('\n');
    atLineStart = true;
  };
  const gate = new ToolLineGate(options.toolLineWaitMs);
  const tell = (from: TreeStreamItem['session'], line: string) => {
    endLine();
    process.stderr.write(`(${from.depth === 0 ? '' : `[${from.title}] `}${line})\n`);
  };
  const writeText = ({ item, session: from }: TreeStreamItem & { item: { type: 'text_delta' } }) => {
    if (owner !== from.id) endLine();
    owner = from.id;
    if (from.depth === 0) {
      const round = `${item.turn}/${item.round}/${item.attempt}`;
      if (round !== rootRound) {
        endLine();
        rootRound = round;
        rootText = '';
      }
      rootText += item.text;
    }
    const prefix = from.depth === 0 ? '' : `[${from.title}] `;
    const text = prefix ? item.text.replace(/\n(?=.)/g, `\n${prefix}`) : item.text;
    write(atLineStart ? prefix + text : text);
    atLineStart = item.text.endsWith('\n');
  };
  const show = (treeItem: TreeStreamItem) => {
    const { item, session: from } = treeItem;
    if (item.type === 'tool_call_started') return gate.started(from.id, item.tool_call_id, item);
    if (item.type === 'retry') {
      gate.forget(from.id, (round) => round.turn === item.turn && round.round === item.round);
      return gate.pass(from.id, undefined, () => {
        tell(from, `the model call is tried again, attempt ${item.attempt}`);
        if (from.depth === 0) rootText = '';
      });
    }
    if (item.type === 'turn_interrupted') {
      gate.forget(from.id, (round) => round.turn === item.turn);
      return gate.pass(from.id, undefined, () => {
        tell(from, `turn ${item.turn} was interrupted`);
        if (from.depth === 0) rootText = '';
      });
    }
    if (item.type !== 'text_delta') return;
    // Counted as shown at once: the event reader must not print this text again as a message while it is held.
    const calls = shown.get(from.id) ?? shown.set(from.id, new Map()).get(from.id)!;
    const call = `${item.turn}/${item.round}/${item.attempt}`;
    calls.set(call, (calls.get(call) ?? '') + item.text);
    gate.pass(from.id, item, () => writeText({ item, session: from }));
  };
  const reading = (async () => {
    try {
      const items = session.streamTree({ from: 0, afterTurn: options.afterTurn, signal: stop.signal, until: finish.signal });
      for await (const treeItem of items) show(treeItem);
    } catch {
      // Live text is a courtesy: the answer is printed whole at the end all the same.
    }
  })();
  return {
    streamed: (sessionId, text, truncated) => {
      const head = truncated ? text.replace(/…$/, '') : text;
      return [...(shown.get(sessionId)?.values() ?? [])].some((written) => (truncated ? written.startsWith(head) : written === text));
    },
    lastRootText: () => (rootRound === undefined ? undefined : rootText),
    eventShown: (sessionId, event) => {
      if (event.type === 'tool_result') gate.resultShown(sessionId, event.tool_call_id);
    },
    endLine,
    async stop() {
      // What every session of the tree holds is read first (a sub-agent's text may be read after its parent's), for a while.
      finish.abort();
      const patience = setTimeout(() => stop.abort(), finishReadingMs);
      await reading;
      clearTimeout(patience);
      gate.flushAll();
    },
  };
}
