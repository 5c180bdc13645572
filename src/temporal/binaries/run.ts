/** Runs an installer command to completion, keeping the tail of its output for error messages. */
import { spawn } from 'node:child_process';

export interface RunResult {
  /** Exit code, or null when killed by a signal (including the timeout). */
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** Last few KB of stdout and stderr, interleaved. */
  output: string;
  /** Set when the command could not be started at all. */
  spawnError?: Error;
}

const KEEP_CHARS = 4000;

export function runCommand(
  command: string,
  args: readonly string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string; timeoutMs: number; onLine?: (line: string) => void },
): Promise<RunResult> {
  return new Promise((resolveRun) => {
    let output = '';
    let timedOut = false;
    let partial = '';
    const child = spawn(command, args, {
      env: options.env,
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      output = (output + text).slice(-KEEP_CHARS);
      if (options.onLine) {
        const lines = (partial + text).split(/\r?\n/);
        partial = lines.pop() ?? '';
        for (const line of lines) if (line.trim()) options.onLine(line);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    const killWithUs = () => child.kill('SIGKILL');
    process.once('exit', killWithUs);
    let settled = false;
    const finish = (result: RunResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      process.removeListener('exit', killWithUs);
      resolveRun(result);
    };
    child.on('error', (err) => finish({ code: null, signal: null, timedOut, output, spawnError: err }));
    child.on('close', (code, signal) => finish({ code, signal, timedOut, output }));
  });
}

/** One-line reason for a failed run, ending with the output's last lines. */
export function describeFailure(command: string, result: RunResult): string {
  if (result.spawnError) return `could not run ${command}: ${result.spawnError.message}`;
  const how = result.timedOut
    ? 'timed out'
    : result.code !== null
      ? `exited with code ${result.code}`
      : `was killed by ${result.signal ?? 'a signal'}`;
  const tail = result.output
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(-6)
    .join(' | ');
  return tail ? `${command} ${how}: ${tail}` : `${command} ${how}`;
}
