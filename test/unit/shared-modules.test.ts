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
