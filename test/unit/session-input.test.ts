import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AesGcmCodec } from '../../src/codec/aes-gcm-codec.js';
import { parseEncryptionKeys } from '../../src/codec/encryption-keys.js';
import { memoryStoreInputProblem } from '../../src/shared/memory-store-input.js';
import { sessionInputProblem } from '../../src/shared/session-input.js';
import { memoryStoreWorkflowType } from '../../src/shared/tools/memory.js';
import { testEncryptionKeys } from '../support/test-encryption-key.js';

const historiesDir = fileURLToPath(new URL('../histories/', import.meta.url));

interface Payloads {
  input?: { payloads?: { data: string }[] };
}

/** Every workflow input in the committed histories: starts, continue-as-new inputs and sub-agents' starts. */
// The committed encrypted histories are read with their fixed test key; plain payloads pass through the codec as they are.
const codec = new AesGcmCodec(parseEncryptionKeys(testEncryptionKeys));

async function payloadText(payload: { metadata?: Record<string, string>; data: string }): Promise<string> {
  const metadata = Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64')]));
  const [decoded] = await codec.decode([{ metadata, data: Buffer.from(payload.data, 'base64') }]);
  return Buffer.from(decoded!.data!).toString('utf8');
}

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
        const input: unknown = payload ? JSON.parse(await payloadText(payload)) : undefined;
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
