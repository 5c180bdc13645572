/**
 * A Python virtualenv with the Python tools example's requirements (examples/python-tools/requirements.txt: the
 * `temporalio` SDK from PyPI), for tests that run that example's worker.
 *
 * It lives in Arbor's cache folder, as the Temporal binaries do (`<cache>/python/venv-<python version>-<hash of the
 * requirements>`), so it is made once per machine and requirements file: `python3 -m venv` into a staging folder,
 * `pip install -r` there, then a rename into place. A half-made venv (an install killed or failed midway) never
 * counts: only a folder with the completion marker written after pip succeeded does, and a lock file makes two test
 * processes starting at once install once. A venv's interpreter finds its packages from its own path, so the renamed
 * venv works when run as `<venv>/bin/python` (its `pip` and `activate` scripts keep the staging path: not used).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { installDirAtomically, withFileLock } from '../../src/temporal/binaries/atomic-install.js';
import { findOnPath, isExecutableFile, isFile } from '../../src/temporal/binaries/files.js';
import { describeFailure, runCommand } from '../../src/temporal/binaries/run.js';
import { arborCacheDir } from '../../src/temporal/binaries.js';

/** The Python tools example: its worker and the requirements the venv is made from. */
export const pythonToolsExample = {
  folder: fileURLToPath(new URL('../../examples/python-tools/', import.meta.url)),
  worker: fileURLToPath(new URL('../../examples/python-tools/worker.py', import.meta.url)),
  requirements: fileURLToPath(new URL('../../examples/python-tools/requirements.txt', import.meta.url)),
  /** The Arbor side: a module for `--tools` that declares lookup_order with defineRemoteTool. */
  toolsModule: fileURLToPath(new URL('../../examples/python-tools/orders-tools.js', import.meta.url)),
};

/**
 * The example's `--tools` module, imported as written except that `arbor/tools` is this tree's source (the package
 * name resolves to dist/, which a test does not build), with ORDERS_TASK_QUEUE set to `taskQueue` while it loads.
 */
export async function importOrdersToolsModule(taskQueue: string): Promise<Record<string, unknown>> {
  const source = await readFile(pythonToolsExample.toolsModule, 'utf8');
  const toolsSource = fileURLToPath(new URL('../../src/tools.ts', import.meta.url));
  const rewritten = source.replace(/from 'arbor\/tools'/g, `from '${toolsSource}'`);
  if (rewritten === source) throw new Error(`${pythonToolsExample.toolsModule} does not import arbor/tools`);
  const scratchRoot = fileURLToPath(new URL('../../.arbor/', import.meta.url));
  await mkdir(scratchRoot, { recursive: true });
  const scratch = await mkdtemp(join(scratchRoot, 'orders-tools-'));
  const copy = join(scratch, 'orders-tools.js');
  await writeFile(copy, rewritten);
  const before = process.env.ORDERS_TASK_QUEUE;
  process.env.ORDERS_TASK_QUEUE = taskQueue;
  try {
    return (await import(pathToFileURL(copy).href)) as Record<string, unknown>;
  } finally {
    if (before === undefined) delete process.env.ORDERS_TASK_QUEUE;
    else process.env.ORDERS_TASK_QUEUE = before;
    await rm(scratch, { recursive: true, force: true });
  }
}

/** temporalio 1.35 needs Python 3.10 or later. */
const MIN_PYTHON: [number, number] = [3, 10];
const PIP_TIMEOUT_MS = 10 * 60_000;
const MARKER = 'arbor-venv-complete';

export class PythonNotAvailableError extends Error {
  override name = 'PythonNotAvailableError';
}

export interface EnsureVenvOptions {
  /** Requirements file to install (default: the Python tools example's). */
  requirements?: string;
  /** PATH, ARBOR_CACHE_DIR and pip's own settings are read from here (default: process.env). */
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

/** Makes (or finds) the venv; resolves with the path of its Python interpreter. */
export async function ensurePythonVenv(options: EnsureVenvOptions = {}): Promise<string> {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => undefined);
  const requirementsPath = options.requirements ?? pythonToolsExample.requirements;
  const requirements = await readFile(requirementsPath, 'utf8');

  const basePython = await findPython(env);
  const version = await pythonVersion(basePython, env);
  const hash = createHash('sha256').update(requirements).digest('hex').slice(0, 12);
  const cacheDir = arborCacheDir(env);
  const venvDir = join(cacheDir, 'python', `venv-py${version.join('.')}-${hash}`);
  const isComplete = async (dir: string) => (await isFile(join(dir, MARKER))) && (await isExecutableFile(venvPython(dir)));
  if (await isComplete(venvDir)) return venvPython(venvDir);

  const lockPath = join(cacheDir, 'locks', `python-${hash}.lock`);
  await withFileLock(
    lockPath,
    async () => {
      if (await isComplete(venvDir)) return;
      log(`making a Python venv with ${requirementsPath} (pip install from PyPI) in ${venvDir}`);
      await installDirAtomically(
        venvDir,
        async (staging) => {
          const made = await runCommand(basePython, ['-m', 'venv', staging], { env, timeoutMs: 2 * 60_000 });
          if (made.code !== 0) {
            throw new Error(`${describeFailure(`${basePython} -m venv`, made)} (on Debian and Ubuntu: apt install python3-venv)`);
          }
          const pipEnv = { ...env, PIP_USER: '0', PIP_NO_INPUT: '1', PIP_DISABLE_PIP_VERSION_CHECK: '1' };
          const installed = await runCommand(venvPython(staging), ['-m', 'pip', 'install', '-r', requirementsPath], {
            env: pipEnv,
            timeoutMs: PIP_TIMEOUT_MS,
          });
          if (installed.code !== 0) throw new Error(describeFailure(`pip install -r ${requirementsPath}`, installed));
          await writeFile(join(staging, MARKER), `${requirements.trim()}\n`);
        },
        isComplete,
      );
    },
    () => log(`waiting for another process making ${venvDir} (lock ${lockPath})`),
  );
  return venvPython(venvDir);
}

function venvPython(venvDir: string): string {
  return process.platform === 'win32' ? join(venvDir, 'Scripts', 'python.exe') : join(venvDir, 'bin', 'python');
}

async function findPython(env: NodeJS.ProcessEnv): Promise<string> {
  for (const name of ['python3', 'python']) {
    const found = await findOnPath(name, env);
    if (found) return found;
  }
  throw new PythonNotAvailableError(
    `python3 was not found on PATH (${env.PATH ?? ''}): the Python tools example needs Python ${MIN_PYTHON.join('.')} or later with venv and pip`,
  );
}

async function pythonVersion(python: string, env: NodeJS.ProcessEnv): Promise<number[]> {
  const result = await runCommand(python, ['-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3])'], { env, timeoutMs: 30_000 });
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(result.output.trim());
  if (result.code !== 0 || !match) throw new PythonNotAvailableError(describeFailure(`${python} -c 'import sys'`, result));
  const version = match.slice(1).map(Number);
  const [major = 0, minor = 0] = version;
  if (major < MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor < MIN_PYTHON[1])) {
    throw new PythonNotAvailableError(
      `${python} is Python ${version.join('.')}; the Python tools example needs ${MIN_PYTHON.join('.')} or later`,
    );
  }
  return version;
}

/** A running Python tools worker (examples/python-tools/worker.py). */
export interface PythonToolsWorker {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Starts the example's worker with the venv's Python; resolves once it says it is ready. */
export async function startPythonToolsWorker(
  python: string,
  settings: { address: string; namespace: string; taskQueue: string },
  timeoutMs = 60_000,
): Promise<PythonToolsWorker> {
  const child = spawn(python, [pythonToolsExample.worker], {
    cwd: pythonToolsExample.folder,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TEMPORAL_CONFIG_FILE: '/nonexistent/arbor-test.toml',
      TEMPORAL_ADDRESS: settings.address,
      TEMPORAL_NAMESPACE: settings.namespace,
      ORDERS_TASK_QUEUE: settings.taskQueue,
      PYTHONUNBUFFERED: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const worker: PythonToolsWorker = {
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the Python tools worker was not ready after ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('worker ready')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the Python tools worker exited (${code ?? signal}) before it was ready:\n${output}`));
    });
  }).catch(async (error: unknown) => {
    await worker.stop();
    throw error;
  });
  return worker;
}
