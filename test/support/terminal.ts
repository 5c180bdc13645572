import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { cliEntry } from './cli-entry.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const tmuxPath = '/usr/bin/tmux';

export const exitMarker = 'ARBOR_EXIT:';

/** A command running in a detached tmux session of its own server (socket), to drive a real terminal. */
export class Terminal {
  private readonly socket = join(tmpdir(), `arbor-tmux-${randomUUID()}`);

  private constructor() {}

  /** Runs the CLI from source in a 200x50 xterm; only the given variables (and PATH, HOME, TERM) reach it. */
  static async startCli(args: string[], env: Record<string, string>): Promise<Terminal> {
    const terminal = new Terminal();
    const variables = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      TERM: 'xterm-256color',
      TEMPORAL_CONFIG_FILE: '/nonexistent/arbor-test.toml',
      ...env,
    };
    const command = [
      'env',
      '-i',
      ...Object.entries(variables).map(([name, value]) => `${name}=${value}`),
      process.execPath,
      ...cliEntry(args, env),
      ...args,
    ];
    const script = `${command.map(shellQuote).join(' ')}; echo ${exitMarker}$?; sleep 600`;
    await terminal.tmux('new-session', '-d', '-s', 's', '-x', '200', '-y', '50', '-c', root, script);
    return terminal;
  }

  /** The screen and up to 200 lines of scrollback, wrapped lines joined. */
  async screen(): Promise<string> {
    const { stdout } = await this.tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', 's');
    return stdout;
  }

  /** Polls the screen every 200 ms until it contains `text`; returns that screen. */
  async waitFor(text: string, timeoutMs = 60_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = await this.screen();
      if (screen.includes(text)) return screen;
      if (Date.now() > deadline) throw new Error(`"${text}" did not appear within ${timeoutMs} ms; the screen:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** Waits for the command to finish; returns its exit code and the final screen. */
  async waitForExit(timeoutMs = 60_000): Promise<{ code: number; screen: string }> {
    const screen = await this.waitFor(exitMarker, timeoutMs);
    const code = /ARBOR_EXIT:(\d+)/.exec(screen)?.[1];
    return { code: Number(code), screen };
  }

  /** Key names as tmux knows them (Down, Enter, …). */
  async press(...keys: string[]): Promise<void> {
    for (const key of keys) await this.tmux('send-keys', '-t', 's', key);
  }

  async type(text: string): Promise<void> {
    await this.tmux('send-keys', '-t', 's', '-l', text);
  }

  /** Stops the tmux server and the command with it; tmux leaves its socket file behind. */
  async kill(): Promise<void> {
    await this.tmux('kill-server').catch(() => undefined);
    await rm(this.socket, { force: true });
  }

  private tmux(...args: string[]): Promise<{ stdout: string; stderr: string }> {
    return run(tmuxPath, ['-S', this.socket, '-f', '/dev/null', ...args], { cwd: root });
  }
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
