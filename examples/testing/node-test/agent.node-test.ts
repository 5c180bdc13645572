// The same kit under node:test: `node --import tsx --test examples/testing/node-test/agent.node-test.ts`.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestArbor, ScriptedModel, text, toolCall, WaitTimeoutError, type TestArbor } from 'arbor/testing';

describe('an agent tested under node:test', () => {
  const model = new ScriptedModel();
  let arbor: TestArbor;

  before(async () => {
    arbor = await createTestArbor({ model, modelTransport: 'http' });
  });

  after(async () => {
    await arbor?.teardown();
  });

  it('writes a todo list and answers, through the real openai client over loopback HTTP', async () => {
    const instruction = 'Write the release notes';
    model.forInstruction(
      instruction,
      toolCall('todoWrite', { todos: [{ content: 'Collect changes', status: 'completed', activeForm: 'Collecting changes' }] }),
      text('The notes are written.'),
    );
    const session = await arbor.startSession({ instruction });

    const snapshot = await arbor.waitUntilIdle(session);

    assert.equal(snapshot.last_message?.content, 'The notes are written.');
    assert.deepEqual(
      snapshot.todos.map((todo) => todo.content),
      ['Collect changes'],
    );
    assert.ok(model.requestsFor(instruction)[0]!.tools.includes('todoWrite'));
  });

  it('wakes a waiting agent when the test skips a day', async () => {
    const instruction = 'Check again tomorrow';
    model.forInstruction(instruction, toolCall('wait', { seconds: 86_400, reason: 'tomorrow' }), text('Checked again.'));
    // wait is a tool of the soai profile (and of all).
    const session = await arbor.startSession({ instruction, profile: 'soai' });
    await assert.rejects(arbor.waitUntilIdle(session, { timeoutMs: 1_000 }), WaitTimeoutError);

    await arbor.fastForward(session, '1 day');

    assert.equal((await arbor.waitUntilIdle(session)).last_message?.content, 'Checked again.');
  });
});
