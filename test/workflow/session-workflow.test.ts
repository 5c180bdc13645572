import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { demoModelName } from '../../src/shared/model.js';
import { createTestArbor, ScriptedModel, toolCall, type TestArbor } from '../../src/testing.js';

// Sessions ask for the demo model by default; the one that needs a model of its own names a scripted one.
describe('the session workflow (the testing kit on the time-skipping server)', () => {
  const model = new ScriptedModel();
  let arbor: TestArbor;

  beforeAll(async () => {
    arbor = await createTestArbor({ model, modelName: demoModelName, workflowBundlePath: inject('workflowBundlePath') });
  });

  afterAll(async () => {
    await arbor?.teardown();
  });

  it('answers two turns with the demo model, writing todos and a plan, and stays open and idle', async () => {
    const session = await arbor.startSession({ profile: 'all', instruction: 'Plan a garden.' });
    const first = await arbor.waitUntilIdle(session);
    expect(first).toMatchObject({ status: 'idle', turn: 1, model: 'demo', title: 'Plan a garden.' });
    expect(first.todos.map((todo) => todo.status)).toEqual(['completed', 'in_progress', 'pending']);
    expect(first.last_message?.content).toContain('demo model');

    const messageId = await session.send('Now water it.');
    const second = await arbor.waitUntilIdle(session);
    expect(second.turn).toBe(2);
    const transcript = await arbor.transcript(session);
    expect(transcript.map((entry) => entry.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
    ]);
    expect(transcript.filter((entry) => entry.role === 'tool').map((entry) => entry.name)).toEqual([
      'todoWrite',
      'planWrite',
      'todoWrite',
      'planWrite',
    ]);
    expect(second.plan).toMatchObject({ title: 'Plan: Now water it.', revision: 2 });
    expect(transcript[5]).toMatchObject({ id: messageId, content: 'Now water it.', turn: 2 });
    expect((await arbor.env.client.workflow.getHandle(session.id).describe()).status.name).toBe('RUNNING');
  });

  it('shows a small tree with the demo model when asked to delegate', async () => {
    const session = await arbor.startSession({ profile: 'all', instruction: 'Please delegate the garden plan.' });
    const snapshot = await arbor.waitUntilIdle(session);
    expect(snapshot.children).toEqual([expect.objectContaining({ title: 'Demo helper', mode: 'sync', status: 'completed' })]);
    const tool = (await arbor.transcript(session)).find((entry) => entry.role === 'tool');
    expect(tool?.name).toBe('subAgent');
    expect(tool?.is_error).toBeUndefined();
    expect(JSON.parse(tool!.content)).toMatchObject({ status: 'completed', content: expect.stringContaining('demo model') });
    expect(snapshot.last_message?.content).toContain('demo model');
  });

  it('does not grow the tree or ask anything when a sub-agent notice quotes "delegate" and "ask"', async () => {
    // The sub-agent has no tools, so it answers with a reply that quotes its instruction, words and all.
    const child = { title: 'Quoter', instruction: 'Please delegate this and ask me first.', mode: 'async', tools: [] };
    const session = await arbor.startSession({ profile: 'all', instruction: `/tool subAgent ${JSON.stringify(child)}` });
    await arbor.settle(session);
    const snapshot = await arbor.waitUntilIdle(session);
    expect(snapshot.turn).toBeGreaterThanOrEqual(2);
    expect(snapshot.children).toEqual([expect.objectContaining({ title: 'Quoter', status: 'completed' })]);
    expect(snapshot.pending_questions).toEqual([]);
    const notice = (await arbor.transcript(session)).filter((entry) => entry.role === 'user').at(-1);
    expect(notice?.content).toMatch(/^\[Sub-agent notice\][\s\S]*delegate this and ask me/);
    expect(snapshot.last_message?.content).toContain('I read a sub-agent notice');
  });

  it('delivers a message sent twice with the same id only once', async () => {
    const session = await arbor.startSession({ profile: 'all', instruction: 'Hello.' });
    await arbor.waitUntilIdle(session);
    await session.send('Once only.', { id: 'message-1' });
    await session.send('Once only.', { id: 'message-1' });
    await arbor.waitUntilIdle(session);
    expect(await session.messageState('message-1')).toBe('handled');
    const users = (await arbor.transcript(session)).filter((entry) => entry.role === 'user');
    expect(users.map((entry) => entry.content)).toEqual(['Hello.', 'Once only.']);
  });

  it('returns malformed and unknown tool calls to the model as tool errors without failing', async () => {
    const session = await arbor.startSession({
      profile: 'all',
      instruction: [
        '/tool todoWrite {"todos": [',
        '/tool launchRockets {}',
        '/tool todoWrite {"todos":[{"content":"a","status":"in_progress"},{"content":"b","status":"in_progress"}]}',
      ].join('\n'),
    });
    const snapshot = await arbor.waitUntilIdle(session);
    expect(snapshot.status).toBe('idle');
    const tools = (await arbor.transcript(session)).filter((entry) => entry.role === 'tool');
    expect(tools.map((entry) => entry.is_error)).toEqual([true, true, true]);
    expect(tools[0]!.content).toMatch(/not valid JSON/);
    expect(tools[1]!.content).toMatch(/Unknown tool "launchRockets"/);
    expect(tools[2]!.content).toMatch(/At most one todo may be in_progress/);
    expect(snapshot.todos).toEqual([]);
  });

  it('offers only the tools a session was given', async () => {
    const session = await arbor.startSession({ profile: 'all', instruction: '/tool todoWrite {"todos":[]}', tools: [] });
    await arbor.waitUntilIdle(session);
    const tool = (await arbor.transcript(session)).find((entry) => entry.role === 'tool');
    expect(tool).toMatchObject({ is_error: true, content: expect.stringContaining('Available tools: none') });
  });

  it('ends a turn that reaches the tool round limit with a notice', async () => {
    const instruction = 'Loop forever.';
    // Exactly the three calls the limit allows: a fourth request would find no step, and the wait would throw.
    model.forInstruction(instruction, ...Array.from({ length: 3 }, () => toolCall('todoWrite', { todos: [] })));
    const session = await arbor.startSession({ profile: 'all', instruction, max_tool_rounds: 3, model: 'looping-model' });
    const snapshot = await arbor.waitUntilIdle(session);
    expect(snapshot.status).toBe('idle');
    expect(snapshot.last_message).toMatchObject({ role: 'notice', content: expect.stringContaining('after 3 model calls') });
    expect(model.requestsFor(instruction)).toHaveLength(3);
  });

  it('completes a sub-agent session when its turn is done and returns its final message', async () => {
    const parent = randomUUID();
    const session = await arbor.startSession({
      profile: 'all',
      instruction: 'Sub task.',
      parent_session_id: parent,
      root_session_id: parent,
    });
    const result = await arbor.waitUntilFinished(session);
    expect(result).toMatchObject({ session_id: session.id, status: 'completed' });
    expect(result.final_message).toContain('demo model');
    await expect(session.send('Anything else?')).rejects.toThrow(/has ended \(completed\); it takes no more messages/);
  });

  it('ends as Canceled with status stopped when the session is stopped', async () => {
    const session = await arbor.startSession({ profile: 'all', instruction: 'Wait for me.' });
    await arbor.waitUntilIdle(session);
    await session.stop();
    const result = await arbor.waitUntilFinished(session);
    expect(result.status).toBe('stopped');
    expect(result.final_message).toContain('demo model');
    expect((await arbor.env.client.workflow.getHandle(session.id).describe()).status.name).toBe('CANCELLED');
    expect((await arbor.snapshot(session)).status).toBe('stopped');
  });
});
