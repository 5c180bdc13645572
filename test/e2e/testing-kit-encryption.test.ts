import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestArbor, ScriptedModel, text, type TestArbor } from '../../src/testing.js';
import { encryptionKeyIdsIn, secretsIn } from '../support/history-texts.js';
import { testEncryptionKeys } from '../support/test-encryption-key.js';

describe('the testing kit with encryptionKeys', () => {
  const model = new ScriptedModel();
  let arbor: TestArbor;

  beforeAll(async () => {
    arbor = await createTestArbor({ model, encryptionKeys: testEncryptionKeys, workflowBundlePath: inject('workflowBundlePath') });
  });

  afterAll(async () => {
    await arbor?.teardown();
  });

  it('runs a session whose history holds only ciphertext, which its client reads back', async () => {
    const instruction = 'Whisper the name of the seventh lighthouse.';
    model.forInstruction(instruction, text('It is called Quillmoor.'));
    const session = await arbor.startSession({ instruction, title: 'Lighthouse' });
    expect((await arbor.waitUntilIdle(session)).last_message?.content).toBe('It is called Quillmoor.');
    const history = historyToJSON(await arbor.client.temporal.workflow.getHandle(session.id).fetchHistory());
    expect(secretsIn(history, [instruction, 'Quillmoor'])).toEqual([]);
    expect(encryptionKeyIdsIn(history)).toEqual(['test-2026']);
  });

  it('refuses a bad key list before anything starts', async () => {
    await expect(createTestArbor({ model, encryptionKeys: 'k1:c2hvcnQ=' })).rejects.toThrow(
      /encryptionKeys: entry 1 \(key "k1"\) is 5 bytes/,
    );
  });
});
