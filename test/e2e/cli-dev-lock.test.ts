import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/temporal/dev-server.js';
import { waitUntil } from '../support/wait.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The CLI from source, run in `cwd` (the folder whose .arbor/ holds the state file). */
function cliIn(cwd: string, args: string[]) {
  const child = spawn(
    process.execPath,
    ['--import', pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href, join(root, 'test/support/cli-main.ts'), ...args],
    {
      cwd,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TEMPORAL_CONFIG_FILE: '/nonexistent/arbor-test.toml',
        ARBOR_CACHE_DIR: process.env.ARBOR_CACHE_DIR ?? '',
        ARBOR_TASK_QUEUE: 'arbor-dev-lock-test',
        ARBOR_WORKFLOW_BUNDLE: process.env.ARBOR_WORKFLOW_BUNDLE,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

describe('arbor dev and the state file of a folder', () => {
  let folder: string;
  let dev: ReturnType<typeof cliIn> | undefined;
  let port: number;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'arbor-dev-lock-'));
    port = await findFreePort('127.0.0.1');
  });

  afterAll(async () => {
    if (dev) {
      dev.child.kill('SIGINT');
      await dev.exited;
    }
    await rm(folder, { recursive: true, force: true });
  });

  it(
    'takes over a stale lock, refuses a second server on the same state file saying how to reach the first, and run uses the first',
    { timeout: 180_000 },
    async () => {
      // A lock left by a process that died.
      const dead = spawn(process.execPath, ['-e', '0']);
      await new Promise((resolve) => dead.once('exit', resolve));
      await mkdir(join(folder, '.arbor'), { recursive: true });
      const lockFile = join(folder, '.arbor/temporal.db.lock');
      await writeFile(
        lockFile,
        JSON.stringify({ pid: dead.pid, address: '127.0.0.1:1', namespace: 'default', ui_url: null, task_queue: 'x' }),
      );

      const [uiPort, consolePort] = [await findFreePort('127.0.0.1'), await findFreePort('127.0.0.1')];
      dev = cliIn(folder, ['dev', '--port', String(port), '--ui-port', String(uiPort), '--console-port', String(consolePort)]);
      await waitUntil(() => dev!.stderr().includes('Arbor console at'), 120_000);
      const address = `127.0.0.1:${port}`;
      expect(JSON.parse(await readFile(lockFile, 'utf8'))).toMatchObject({ pid: dev.child.pid, address });
      expect(dev.stderr()).toContain(`Sessions in the Web UI: http://127.0.0.1:${uiPort}/namespaces/default/workflows?query=`);
      expect(dev.stderr()).toContain(`From another terminal: TEMPORAL_ADDRESS=${address} arbor run`);
      // The console beside the Web UI, both addresses printed, reading the same server's sessions.
      const consoleUrl = `http://127.0.0.1:${consolePort}/`;
      expect(dev.stderr()).toContain(`Arbor is running: Temporal at ${address}, Web UI at http://127.0.0.1:${uiPort}`);
      expect(dev.stderr()).toContain(`Arbor console at ${consoleUrl} `);
      const consoleList = await fetch(`${consoleUrl}api/sessions`);
      expect(consoleList.status).toBe(200);
      expect(Array.isArray(await consoleList.json())).toBe(true);

      const second = cliIn(folder, ['dev', '--port', String(await findFreePort('127.0.0.1'))]);
      expect(await second.exited).toBe(2);
      expect(second.stderr()).toContain(
        `arbor: arbor dev (pid ${dev.child.pid}) already runs a Temporal server on .arbor/temporal.db, at ${address}`,
      );
      expect(second.stderr()).toContain(`TEMPORAL_ADDRESS=${address} arbor run`);

      // run in the same folder, naming no server, uses the running one (and its worker) instead of starting another.
      const ran = cliIn(folder, ['run', 'Plan a picnic.', '--json']);
      expect(await ran.exited, ran.stderr()).toBe(0);
      expect(ran.stderr()).not.toContain('starting the embedded dev server');
      expect(ran.stderr()).not.toContain('starting one in this process');
      const { session_id } = JSON.parse(ran.stdout()) as { session_id: string };
      const listed = cliIn(folder, ['list', '--json']);
      expect(await listed.exited, listed.stderr()).toBe(0);
      await waitUntil(async () => {
        const again = cliIn(folder, ['list', '--json']);
        await again.exited;
        return again.stdout().includes(session_id);
      }, 30_000);

      dev.child.kill('SIGINT');
      expect(await dev.exited).toBe(0);
      dev = undefined;
      await expect(readFile(lockFile, 'utf8')).rejects.toThrow(/ENOENT/);
    },
  );
});
