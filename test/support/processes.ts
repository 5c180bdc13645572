import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cliEntry } from './cli-entry.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI (see `cliEntry`) and collects its output. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000, stdin?: string): Promise<ProcessResult> {
  const child = spawnNode([...cliEntry(args, env), ...args], env, stdin !== undefined);
  if (stdin !== undefined) child.stdin!.end(stdin);
  return collect(child, timeoutMs);
}

/** A CLI process left running (e.g. `arbor watch`), with what it has printed so far. */
export interface RunningCli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Sends SIGINT (Ctrl-C) and resolves with the exit code. */
  interrupt(): Promise<number | null>;
}

export function startCli(args: string[], env: NodeJS.ProcessEnv = {}): RunningCli {
  const child = spawnNode([...cliEntry(args, env), ...args], env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    async interrupt() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      return exited;
    },
  };
}

/** Runs a TypeScript file of the tree (a README example, say) as its own process and collects its output. */
export function runScript(script: string, env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000, args: string[] = []): Promise<ProcessResult> {
  return collect(spawnTs(script, args, env), timeoutMs);
}

/** The environment of a worker process for the given server and task queue, talking to a fake model endpoint. */
export function workerProcessEnv(
  settings: { address: string; taskQueue: string },
  modelBaseURL: string,
  apiKey: string,
): NodeJS.ProcessEnv {
  return {
    TEMPORAL_ADDRESS: settings.address,
    ARBOR_TASK_QUEUE: settings.taskQueue,
    OPENAI_BASE_URL: modelBaseURL,
    OPENAI_API_KEY: apiKey,
    ARBOR_MODEL: 'fake-model',
  };
}

/** Starts a worker process; resolves once it polls. */
export async function startWorkerProcess(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawnTs('test/support/worker-main.ts', [], env);
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('worker ready')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`worker process exited with ${code} before it was ready:\n${output}`)));
  });
  return child;
}

export async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function spawnTs(script: string, args: string[], env: NodeJS.ProcessEnv, withStdin = false): ChildProcess {
  return spawnNode(['--import', 'tsx', script, ...args], env, withStdin);
}

function spawnNode(args: string[], env: NodeJS.ProcessEnv, withStdin = false): ChildProcess {
  return spawn(process.execPath, args, {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TEMPORAL_CONFIG_FILE: '/nonexistent/arbor-test.toml',
      // The run's workflow bundle (test/support/prebuilt-bundle.ts): a worker started from source need not bundle.
      ARBOR_WORKFLOW_BUNDLE: process.env.ARBOR_WORKFLOW_BUNDLE,
      ...env,
    },
    stdio: [withStdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
}

function collect(child: ChildProcess, timeoutMs: number): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`process timed out after ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
