import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { memoryStoreInputProblem } from '../../src/shared/memory-store-input.js';
import { sessionInputProblem } from '../../src/shared/session-input.js';
import { memoryStoreWorkflowType } from '../../src/shared/tools/memory.js';

const historiesDir = fileURLToPath(new URL('../histories/', import.meta.url));

interface Payloads {
  input?: { payloads?: { data: string }[] };
}

/** Every workflow input in the committed histories: starts, continue-as-new inputs and sub-agents' starts. */
async function recordedInputs(): Promise<{ type: string; where: string; input: unknown }[]> {
  const inputs = [];
  for (const type of await readdir(historiesDir, { withFileTypes: true })) {
    if (!type.isDirectory()) continue;
    for (const file of await readdir(`${historiesDir}${type.name}`)) {
      const history = JSON.parse(await readFile(`${historiesDir}${type.name}/${file}`, 'utf8'));
      for (const event of history.events as Record<string, Payloads | undefined>[]) {
        const attributes =
          event.workflowExecutionStartedEventAttributes ??
          event.workflowExecutionContinuedAsNewEventAttributes ??
          event.startChildWorkflowExecutionInitiatedEventAttributes;
        const payload = attributes?.input?.payloads?.[0];
        if (!attributes || file === 'invalid-input.json') continue;
        const input: unknown = payload ? JSON.parse(Buffer.from(payload.data, 'base64').toString('utf8')) : undefined;
        inputs.push({ type: type.name, where: `${type.name}/${file}`, input });
      }
    }
  }
  return inputs;
}

describe("the workflows' checks of their input", () => {
  it('pass every input Arbor itself has given a workflow: starts, sub-agents and continue-as-new, of every type', async () => {
    const inputs = await recordedInputs();
    expect(inputs.length).toBeGreaterThan(50);
    expect(inputs.some(({ input }) => (input as { carried?: unknown }).carried)).toBe(true);
    expect(inputs.some(({ input }) => (input as { environment?: unknown }).environment)).toBe(true);
    for (const { type, where, input } of inputs) {
      const problem = type === memoryStoreWorkflowType ? memoryStoreInputProblem(input) : sessionInputProblem(input);
      expect(problem, where).toBeNull();
    }
  });

  it('refuse a blank instruction on a first run, but not a continued run, which carries its state instead', () => {
    expect(sessionInputProblem({ instruction: ' \n ' })).toMatch(/instruction is blank/);
    expect(sessionInputProblem({ instruction: 'Plan a picnic', title: 'Picnic' })).toBeNull();
    expect(sessionInputProblem({})).toBeNull();
    expect(sessionInputProblem({ title: 'Picnic', carried: { transcript: [] } })).toBeNull();
    expect(sessionInputProblem({ carried: 'not an object' })).toMatch(/at carried/);
    expect(sessionInputProblem(null)).toMatch(/expected object, received null/);
  });
});
