import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devServerSettings } from '../support/connection.js';
import { runCli } from '../support/processes.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const scratch = `${root}.arbor/cli-tools-${randomUUID()}`;

/** A tools module as a user writes it: tool definitions exported from a file. */
function toolsModule(body: string): string {
  return `import { z } from 'zod';\nimport { defineHostTool } from '${root}src/tools.ts';\n${body}\n`;
}

const greet = `defineHostTool({ name: 'greet', description: 'Greets by name.', input: z.object({ name: z.string() }), run: ({ name }) => 'Hello, ' + name + '!' })`;

describe('the CLI with --tools and ARBOR_TOOLS', () => {
  beforeAll(async () => {
    await mkdir(scratch, { recursive: true });
    await writeFile(`${scratch}/greet.ts`, toolsModule(`export default [${greet}];`));
    await writeFile(`${scratch}/twice.ts`, toolsModule(`export const one = ${greet};\nexport const two = ${greet};`));
    await writeFile(`${scratch}/collides.ts`, toolsModule(`export const todo = ${greet.replace("'greet'", "'todoWrite'")};`));
    await writeFile(`${scratch}/bad-name.ts`, toolsModule(`export const tool = ${greet.replace("'greet'", "'greet people'")};`));
    await writeFile(`${scratch}/empty.ts`, `export const nothing = 1;\n`);
  });

  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('runs a session whose in-process worker serves the tools of a --tools module, limited to the tools named', async () => {
    const settings = devServerSettings();
    const result = await runCli(
      ['run', '/tool greet {"name": "Ada"}', '--model', 'demo', '--tools', `${scratch}/greet.ts`, '--tools', 'greet,todoWrite', '--json'],
      { TEMPORAL_ADDRESS: settings.address, ARBOR_TASK_QUEUE: settings.taskQueue },
      90_000,
    );
    expect(result.code, result.stderr).toBe(0);
    const output = JSON.parse(result.stdout);
    expect(output.answer).toContain('greet answered: Hello, Ada!');
  });

  it.each([
    ['arbor worker', 'a tool defined twice (ARBOR_TOOLS)', ['worker'], { ARBOR_TOOLS: 'twice.ts' }, /Tool "greet" is defined twice/],
    [
      'arbor worker',
      'a name taken by a built-in tool',
      ['worker', '--tools', 'collides.ts'],
      {},
      /Tool "todoWrite": the name is taken by one of Arbor's built-in tools/,
    ],
    [
      'arbor worker',
      'a name the OpenAI API refuses',
      ['worker', '--tools', 'bad-name.ts'],
      {},
      /Tool "greet people": a tool name must be 1-64 letters, digits, underscores or hyphens/,
    ],
    [
      'arbor worker',
      'a module with no tool definitions',
      ['worker', '--tools', 'empty.ts'],
      {},
      /The tools module .*empty\.ts exports no tool definitions/,
    ],
    ['arbor worker', 'a module that does not exist', ['worker', '--tools', 'missing.ts'], {}, /Cannot load the tools module .*missing\.ts/],
    ['arbor dev', 'a tool defined twice', ['dev', '--tools', 'twice.ts'], {}, /Tool "greet" is defined twice/],
    ['arbor run', 'a name taken by a built-in tool', ['run', 'x', '--tools', 'collides.ts'], {}, /Tool "todoWrite": the name is taken/],
    [
      'arbor start',
      'a tools module, which it has no worker to serve',
      ['start', 'x', '--tools', 'greet.ts'],
      {},
      /arbor start runs no worker, so it cannot serve the tools of/,
    ],
  ])('stops %s before it connects, with exit code 2, on %s, saying which and why', async (_command, _what, args, env, message) => {
    // Nothing listens on port 1: each command stops before it connects.
    const result = await runScratchCli(args, { TEMPORAL_ADDRESS: '127.0.0.1:1', ...env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});

/** The CLI run from the scratch folder, so relative module paths resolve there. */
function runScratchCli(args: string[], env: NodeJS.ProcessEnv) {
  const relative = (item: string) => (item.endsWith('.ts') ? `${scratch}/${item}` : item);
  const tools = env.ARBOR_TOOLS ? { ARBOR_TOOLS: relative(env.ARBOR_TOOLS) } : {};
  return runCli(args.map(relative), { ...env, ...tools });
}
