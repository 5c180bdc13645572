import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answerRequestSchema } from '../../src/shared/questions.js';
import { sessionInputSchema, toolCallSchema, userMessageSchema } from '../../src/shared/session.js';
import { builtinTools } from '../../src/shared/tools/registry.js';

/** Every regular expression reachable from a zod schema: its checks, formats and nested schemas. */
function regularExpressionsIn(schema: unknown): RegExp[] {
  const found: RegExp[] = [];
  const seen = new Set<unknown>();
  const visit = (value: unknown): void => {
    if (value === null || typeof value !== 'object' || seen.has(value)) return;
    seen.add(value);
    if (value instanceof RegExp) return void found.push(value);
    if (Array.isArray(value)) return value.forEach(visit);
    const internals = (value as { _zod?: { def?: unknown } })._zod;
    if (internals) return visit(internals.def);
    Object.values(value).forEach(visit);
  };
  visit(schema);
  return found;
}

const sharedByZod = new Set(Object.values(z.regexes).filter((value): value is RegExp => value instanceof RegExp));
const workflowSchemas: [string, z.ZodType][] = [
  ...builtinTools.map((tool): [string, z.ZodType] => [tool.name, tool.input]),
  ['session input', sessionInputSchema()],
  ['user message', userMessageSchema()],
  ['tool call', toolCallSchema()],
  ['answer request', answerRequestSchema()],
];

describe('schemas in workflow code', () => {
  // The worker shares zod among workflows and freezes it (src/workflows/shared-modules.ts); a format that tests one of
  // zod's own expressions resets its lastIndex, which a frozen expression refuses, so such a check would throw.
  it.each(workflowSchemas)('%s tests no regular expression that zod shares', (_name, schema) => {
    expect(regularExpressionsIn(schema).filter((pattern) => sharedByZod.has(pattern))).toEqual([]);
  });

  it('would notice a format that tests a regular expression zod shares', () => {
    const found = regularExpressionsIn(z.object({ contact: z.object({ address: z.string().email().optional() }) }));
    expect(found.some((pattern) => sharedByZod.has(pattern))).toBe(true);
    expect(regularExpressionsIn(z.string().regex(/^a+$/)).some((pattern) => sharedByZod.has(pattern))).toBe(false);
  });

  it('builds a tool’s schema once and keeps it', () => {
    const tool = builtinTools.find((candidate) => candidate.name === 'createGoal')!;
    expect(tool.input).toBe(tool.input);
    expect(tool.input.safeParse({ condition: 'tests pass' }).success).toBe(true);
  });
});

/** What the worker does to every module it shares among workflows (`deepFreeze` of @temporalio/worker's reusable-vm.js). */
function freezeAsTheWorkerDoes(object: unknown, visited = new WeakSet<object>()): void {
  if (object === null || (typeof object !== 'object' && typeof object !== 'function') || visited.has(object)) return;
  visited.add(object);
  if (Object.isFrozen(object)) return;
  if (typeof object === 'object') {
    for (const name of [...Object.getOwnPropertyNames(object), ...Object.getOwnPropertySymbols(object)]) {
      try {
        freezeAsTheWorkerDoes((object as Record<string | symbol, unknown>)[name], visited);
      } catch {
        // As the worker: some objects cannot be frozen.
      }
    }
  }
  Object.freeze(object);
}

describe('modules the worker shares and freezes', () => {
  it('still check a session input, and every built-in tool of every profile still parses its arguments', async () => {
    const sessionInput = await import('../../src/shared/session-input.js');
    const registry = await import('../../src/shared/tools/registry.js');
    const profiles = await import('../../src/shared/tools/profiles/index.js');
    // The worker freezes every module the shared ones import, not only what they export.
    const toolsFolder = new URL('../../src/shared/tools/', import.meta.url);
    const toolFiles = readdirSync(toolsFolder, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    const toolModules = await Promise.all(toolFiles.map((file) => import(new URL(file, toolsFolder).href) as Promise<object>));
    for (const shared of [sessionInput, ...toolModules]) freezeAsTheWorkerDoes({ ...shared });
    expect(Object.isFrozen(registry.builtinTools[0])).toBe(true);
    expect(sessionInput.sessionInputProblem({ instruction: 'Plan a picnic', title: 'Picnic', tools: [] })).toBeNull();
    expect(sessionInput.sessionInputProblem({ instruction: 'Plan a picnic', colour: 'red' })).toContain('Unrecognized key: "colour"');
    const profileTools = Object.values(profiles.toolProfiles).flatMap((profile) => profile.tools);
    expect(profileTools.every((name) => registry.findTool(name) !== undefined)).toBe(true);
    for (const tool of registry.builtinTools) {
      // zod resets the lastIndex of each expression it tests, which a frozen one refuses.
      expect(regularExpressionsIn(tool.input).filter((pattern) => Object.isFrozen(pattern))).toEqual([]);
      const parsed = tool.input.safeParse({});
      // Parsing, and describing what is wrong, must not write to a frozen schema.
      if (!parsed.success) expect(z.prettifyError(parsed.error)).not.toBe('');
    }
  });
});

/** A module-level variable: one for every workflow of a worker, once the worker shares the module. */
const moduleVariable = /^(?:export\s+)?(?:let|var)\s+\w+/m;

describe('workflow modules the worker shares', () => {
  // shared-modules.ts preloads the session's modules (issue 32): their module scope runs once per worker, so a value a
  // module keeps for its workflow is a workflow-local (workflow-local.ts), not a module variable. index.ts and the
  // tracing interceptors are still evaluated per workflow.
  const folder = new URL('../../src/workflows/', import.meta.url);
  const perWorkflow = new Set(['index.ts', 'tracing/interceptors.ts']);
  const files = readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts') && !perWorkflow.has(file));

  it.each(files)('%s keeps no module-level variable', (file) => {
    expect(readFileSync(new URL(file, folder), 'utf8').match(moduleVariable)?.[0]).toBeUndefined();
  });

  it('would notice one', () => {
    expect('import x from "y";\nlet generation = 0;\n').toMatch(moduleVariable);
    expect('function f() {\n  let local = 0;\n}\n').not.toMatch(moduleVariable);
  });
});
