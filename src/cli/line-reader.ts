import { createInterface, type Interface } from 'node:readline';

/** Where chat reads the user's lines from; null at end of input (Ctrl-D, or the end of a pipe). */
export interface LineReader {
  next(prompt: string): Promise<string | null>;
  close(): void;
}

/**
 * On a terminal, one readline per line, closed again before the turn runs, so that question prompts own the terminal
 * meanwhile (type-ahead waits in the terminal's buffer). From a pipe, one readline for the whole input, so no piped
 * line read ahead is lost.
 */
export function createLineReader(): LineReader {
  return process.stdin.isTTY ? terminalLines() : pipedLines();
}

function terminalLines(): LineReader {
  let current: Interface | undefined;
  return {
    next(prompt) {
      return new Promise((resolve) => {
        const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
        current = rl;
        let answered = false;
        rl.once('line', (line) => {
          answered = true;
          rl.close();
          resolve(line);
        });
        rl.once('close', () => {
          if (!answered) resolve(null);
        });
        rl.setPrompt(prompt);
        rl.prompt();
      });
    },
    close() {
      current?.close();
    },
  };
}

function pipedLines(): LineReader {
  const rl = createInterface({ input: process.stdin, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  return {
    async next(prompt) {
      process.stdout.write(prompt);
      const result = await lines.next();
      return result.done ? null : result.value;
    },
    close() {
      rl.close();
    },
  };
}
