/** How a command prints: one JSON object with --json, human text otherwise. Progress goes to stderr so stdout stays clean. */
export interface Output {
  json: boolean;
  /** The command's result: JSON when asked, else the given text. */
  result(data: unknown, text: string): void;
  /** Human progress; silent with --json. */
  progress(line: string): void;
}

export function createOutput(json: boolean): Output {
  return {
    json,
    result(data, text) {
      process.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : text.endsWith('\n') ? text : `${text}\n`);
    },
    progress(line) {
      if (!json) process.stderr.write(`${line}\n`);
    },
  };
}
