import { spawn } from 'node:child_process';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ConnectionSettings } from '../../src/client/connection.js';
import { demoModelName } from '../../src/shared/model.js';
import { createArborWorker, type ArborWorker } from '../../src/worker.js';
import { replayHistories } from '../../src/testing.js';
import { devServerSettings } from '../support/connection.js';
import { runScript } from '../support/processes.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The first TypeScript block after a README heading, with the package's own name pointed at its source. */
async function readmeExample(heading: string): Promise<string> {
  const readme = await readFile(`${root}README.md`, 'utf8');
  const section = readme.slice(readme.indexOf(`\n${heading}\n`));
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error(`no TypeScript example under ${heading}`);
  return block
    .replace(/from 'arbor'/g, `from '${root}src/index.ts'`)
    .replace(/from 'arbor\/client'/g, `from '${root}src/client.ts'`)
    .replace(/from 'arbor\/tools'/g, `from '${root}src/tools.ts'`)
    .replace(/from 'arbor\/testing'/g, `from '${root}src/testing.ts'`);
}

describe('the README', () => {
  let settings: ConnectionSettings;
  let worker: ArborWorker;
  let running: Promise<void>;
  const scratch = `${root}.arbor/readme-examples-${randomUUID()}`;

  beforeAll(async () => {
    settings = devServerSettings();
    worker = await createArborWorker({ connection: settings, model: { defaultModel: demoModelName, requestTimeoutMs: 10_000 } });
    running = worker.run();
    await mkdir(scratch, { recursive: true });
  });

  afterAll(async () => {
    worker?.shutdown();
    await running;
    await rm(scratch, { recursive: true, force: true });
  });

  it('has a streaming example that prints the demo model’s answer as it is written', async () => {
    const script = `${scratch}/streaming.ts`;
    await writeFile(script, await readmeExample('### Streaming answers'));
    const result = await runScript(script, { TEMPORAL_ADDRESS: settings.address, ARBOR_TASK_QUEUE: settings.taskQueue }, 120_000);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    // The demo plans first (todoWrite), then answers: both texts streamed, the answer's length printed after.
    expect(result.stdout).toContain('(demo model) Let me plan this first.');
    expect(result.stdout).toContain('You asked: "Plan a picnic"');
    expect(result.stdout).toMatch(/\nstreamed: \d+ characters\n$/);
  });

  it('has a client SDK example that runs as written against a worker with the demo model', async () => {
    const script = `${scratch}/client-sdk.ts`;
    await writeFile(script, await readmeExample('## The client SDK'));
    const result = await runScript(script, { TEMPORAL_ADDRESS: settings.address, ARBOR_TASK_QUEUE: settings.taskQueue }, 120_000);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    // What the example prints: the first answer, the transcripts, the tree, the tree's live events, alice's memories.
    expect(result.stdout.split('\n')[0]).toContain('You asked: "Plan a garden"');
    expect(result.stdout).toContain("content: 'Now water it'");
    expect(result.stdout).toContain("title: 'Garden'");
    expect(result.stdout).toMatch(/^Garden 1 status_changed$/m);
    // The demo model plans with todoWrite in the rtc profile, the default (it writes a plan too where planWrite is offered).
    expect(result.stdout).toMatch(/^Garden \d+ todos_updated$/m);
    expect(result.stdout).not.toMatch(/^Garden \d+ plan_updated$/m);
    expect(result.stdout.trimEnd().endsWith('[]')).toBe(true);
  });

  it('has a fork example that forks a session at its first turn end and lets the fork go its own way', async () => {
    const script = `${scratch}/fork.ts`;
    await writeFile(script, await readmeExample('### Forking a session or a tree'));
    const result = await runScript(script, { TEMPORAL_ADDRESS: settings.address, ARBOR_TASK_QUEUE: settings.taskQueue }, 120_000);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    // The fork's origin and size (the demo's first turn: the instruction, a todoWrite call, its result, the answer), then its own answer.
    expect(result.stdout).toMatch(/^\{ session_id: '[0-9a-f-]{36}', position: 4 \} 4 \d+$/m);
    expect(result.stdout).toContain('You asked: "Make it a rock garden instead"');
  });

  it('has a "Your own tools" example that serves a host tool and gives the demo model its result', async () => {
    const script = `${scratch}/own-tools.ts`;
    await writeFile(script, await readmeExample('## Your own tools'));
    // A task queue of its own: the example runs its worker, with its tools, and no other worker may take its session.
    const own = devServerSettings();
    const result = await runScript(script, { TEMPORAL_ADDRESS: own.address, ARBOR_TASK_QUEUE: own.taskQueue }, 120_000);
    // The example runs a worker, whose SDK logs at INFO; nothing may go wrong.
    expect(result.stderr, result.stderr).not.toMatch(/\[(WARN|ERROR)\]/);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('lookup_order answered: {"order_id":"A1","status":"shipped","items":2}');
  });

  it('has an approval example whose refund over 100 EUR is asked about, denied with a reason, and never runs', async () => {
    const script = `${scratch}/approval.ts`;
    await writeFile(script, await readmeExample('### Approval before a call'));
    const own = devServerSettings();
    const result = await runScript(script, { TEMPORAL_ADDRESS: own.address, ARBOR_TASK_QUEUE: own.taskQueue }, 120_000);
    expect(result.stderr, result.stderr).not.toMatch(/\[(WARN|ERROR)\]/);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('May refund run with {"order_id": "A1", "eur": 250}?');
    expect(result.stdout).toContain(
      'Error: The user denied the call to refund, so it did not run. They said: "refunds over 100 EUR go through finance"',
    );
    expect(result.stdout).not.toContain('refunded 250 EUR');
  });

  it('has a "Testing your agents" example that passes under node:test, a day of hourly firings skipped', async () => {
    const script = `${scratch}/watch-build.test.ts`;
    await writeFile(script, await readmeExample('## Testing your agents'));
    const result = await runNodeTest(script);
    expect(result.stdout).toMatch(/^# pass 1$/m);
    expect(result.stdout).toMatch(/^# fail 0$/m);
    expect(result.code).toBe(0);
  });

  it("has a worker options example whose automation run is kept from the administrator's listed tool", async () => {
    const script = `${scratch}/worker-options.ts`;
    await writeFile(script, await readmeExample('## Worker options'));
    const own = devServerSettings();
    const result = await runScript(script, { TEMPORAL_ADDRESS: own.address, ARBOR_TASK_QUEUE: own.taskQueue }, 120_000);
    expect(result.stderr, result.stderr).not.toMatch(/\[(WARN|ERROR)\]/);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      "This automation run goes on without planWrite: the worker's administrator list (automationDisallowedTools) allows no automation run to use them.",
    );
    expect(result.stdout).toContain('Error: Unknown tool "planWrite". Available tools: todoWrite.');
  });

  it('has an MCP servers example whose worker starts the everything server and whose session calls its get-sum tool', async () => {
    const script = `${scratch}/mcp-servers.ts`;
    await writeFile(script, await readmeExample('## MCP servers'));
    const own = devServerSettings();
    const result = await runScript(script, { TEMPORAL_ADDRESS: own.address, ARBOR_TASK_QUEUE: own.taskQueue }, 120_000);
    expect(result.stderr, result.stderr).not.toMatch(/\[(WARN|ERROR)\]/);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('everything: ready');
    expect(result.stdout).toContain('The sum of 19 and 23 is 42.');
  });

  it('has a Tool profiles example whose soai session writes todo_write and whose default rtc session does not know it', async () => {
    const script = `${scratch}/tool-profiles.ts`;
    await writeFile(script, await readmeExample('### Tool profiles'));
    const result = await runScript(script, { TEMPORAL_ADDRESS: settings.address, ARBOR_TASK_QUEUE: settings.taskQueue }, 120_000);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const [first, second] = result.stdout.split('\n');
    expect(first).toBe('soai Copy the data');
    expect(second).toMatch(/^Error: Unknown tool "todo_write"\. Available tools: .*todoWrite.*\. This session has the rtc tool profile\.$/);
  });

  it('has a Plan mode example whose destructive host tool is refused until the plan is executed, and then runs', async () => {
    const script = `${scratch}/plan-mode.ts`;
    await writeFile(script, await readmeExample('### Plan mode'));
    const own = devServerSettings();
    const result = await runScript(script, { TEMPORAL_ADDRESS: own.address, ARBOR_TASK_QUEUE: own.taskQueue }, 120_000);
    expect(result.stderr, result.stderr).not.toMatch(/\[(WARN|ERROR)\]/);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split('\n').slice(0, 3)).toEqual([
      'Error: deploy is marked destructive (it changes things outside this conversation), and this session is in Plan mode, so the call did not run. Put the step in the todo list (todoWrite) instead: it runs once the user executes the plan.',
      'execute',
      'deployed shop',
    ]);
  });

  it('has a prebuilt bundle example whose bundle, named in ARBOR_WORKFLOW_BUNDLE, is the one the testing kit replays with', async () => {
    const script = `${scratch}/bundle.ts`;
    await writeFile(script, await readmeExample('## Configuration'));
    const bundle = `${scratch}/workflow-bundle.js`;
    const result = await runScript(script, {}, 120_000, [bundle]);
    // The bundler logs its progress at INFO; nothing may go wrong.
    expect(result.stderr, result.stderr).not.toMatch(/\[(WARN|ERROR)\]/);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`ARBOR_WORKFLOW_BUNDLE=${bundle}\n`);
    const histories = `${scratch}/histories`;
    await mkdir(histories);
    await copyFile(`${root}test/histories/arborSessionV3/demo-two-turns.json`, `${histories}/demo-two-turns.json`);
    try {
      vi.stubEnv('ARBOR_WORKFLOW_BUNDLE', bundle);
      await expect(replayHistories(histories)).resolves.toEqual([{ file: 'demo-two-turns.json' }]);
      // The variable is what the replay ran: a file that is no bundle of Arbor's workflows fails it.
      const notABundle = `${scratch}/not-a-bundle.js`;
      await writeFile(notABundle, 'export {};\n');
      vi.stubEnv('ARBOR_WORKFLOW_BUNDLE', notABundle);
      await expect(replayHistories(histories)).rejects.toThrow();
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('says the package entry points are the files the map names', async () => {
    const manifest = JSON.parse(await readFile(`${root}package.json`, 'utf8'));
    expect(manifest.exports['.'].default).toBe('./dist/index.js');
    expect(manifest.exports['./client'].default).toBe('./dist/client.js');
    expect(manifest.exports['./tools'].default).toBe('./dist/tools.js');
    expect(manifest.exports['./testing'].default).toBe('./dist/testing.js');
    const build = JSON.parse(await readFile(`${root}tsconfig.build.json`, 'utf8'));
    expect(build.compilerOptions.rootDir).toBe('src');
    await expect(readFile(`${root}src/index.ts`, 'utf8')).resolves.toContain("from './client.js'");
    await expect(readFile(`${root}src/client.ts`, 'utf8')).resolves.toContain('ArborClient');
    await expect(readFile(`${root}src/tools.ts`, 'utf8')).resolves.toContain('defineHostTool');
    await expect(readFile(`${root}src/index.ts`, 'utf8')).resolves.toContain("from './tools.js'");
    await expect(readFile(`${root}src/testing.ts`, 'utf8')).resolves.toContain('createTestArbor');
  });
});

function runNodeTest(file: string): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', file], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
  });
}
