import type { SessionHandle } from '../client/session-handle.js';
import type { TreeStreamItem } from '../client/events/tree-stream.js';

export interface LiveText {
  /** Whether the model's text of this session was shown as it was written. */
  streamed(sessionId: string): boolean;
  /** The root's newest streamed text of a round (the answer, when it is the turn's last round). */
  lastRootText(): string | undefined;
  /** Ends a line left open, so what follows starts on its own line. */
  endLine(): void;
  stop(): Promise<void>;
}

/**
 * Prints what the model writes in a session's tree as it is written, on stdout: the root's text as it comes, a
 * sub-agent's with its title before each line. A retried model call is announced on stderr and its text starts on
 * a new line. Turns up to `afterTurn` of the root are someone else's (the command reads from before its message).
 */
export function startLiveText(session: SessionHandle, options: { afterTurn: number; write?: (text: string) => void }): LiveText {
  const write = options.write ?? ((text: string) => void process.stdout.write(text));
  const stop = new AbortController();
  const seen = new Set<string>();
  let owner: string | undefined;
  let atLineStart = true;
  let rootRound: string | undefined;
  let rootText = '';
  const endLine = () => {
    if (!atLineStart) write('\n');
    atLineStart = true;
  };
  const show = ({ item, session: from }: TreeStreamItem) => {
    if (from.depth === 0 && 'turn' in item && item.turn <= options.afterTurn) return;
    if (item.type === 'retry') {
      endLine();
      process.stderr.write(`(${from.depth === 0 ? '' : `[${from.title}] `}the model call is tried again, attempt ${item.attempt})\n`);
      if (from.depth === 0) rootText = '';
      return;
    }
    if (item.type === 'turn_interrupted') {
      endLine();
      process.stderr.write(`(${from.depth === 0 ? '' : `[${from.title}] `}turn ${item.turn} was interrupted)\n`);
      if (from.depth === 0) rootText = '';
      return;
    }
    if (item.type !== 'text_delta') return;
    seen.add(from.id);
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
  const reading = (async () => {
    try {
      for await (const treeItem of session.streamTree({ from: 0, signal: stop.signal })) show(treeItem);
    } catch {
      // Live text is a courtesy: the answer is printed whole at the end all the same.
    }
  })();
  return {
    streamed: (sessionId) => seen.has(sessionId),
    lastRootText: () => (rootRound === undefined ? undefined : rootText),
    endLine,
    async stop() {
      stop.abort();
      await reading;
    },
  };
}
