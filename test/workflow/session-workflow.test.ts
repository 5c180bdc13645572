import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionHandle } from '../../src/client/session-handle.js';
import { sessionWorkflowType, type SessionInput } from '../../src/shared/session.js';
import type { arborSessionV2 } from '../../src/workflows/session-workflow.js';
import { FakeOpenAI } from '../support/fake-openai.js';
import { createTimeSkippingEnvironment, demoModel, withWorker } from '../support/time-skipping.js';
import { waitUntil } from '../support/wait.js';

describe('the session workflow (time-skipping server)', () => {
  let env: TestWorkflowEnvironment;
  const fake = new FakeOpenAI();

  beforeAll(async () => {
    env = await createTimeSkippingEnvironment();
    await fake.start();
  });

  afterAll(async () => {
    await env?.teardown();
    await fake.stop();
  });

  async function start(taskQueue: string, input: SessionInput): Promise<SessionHandle> {
    const id = randomUUID();
    await env.client.workflow.start<typeof arborSessionV2>(sessionWorkflowType, { workflowId: id, taskQueue, args: [input] });
    return new SessionHandle(id, env.client);
  }

  it('answers two turns with the demo model, writing todos and a plan, and stays open and idle', async () => {
    await withWorker(env, demoModel, async (taskQueue) => {
      const session = await start(taskQueue, { instruction: 'Plan a garden.' });
      const first = await session.waitUntilIdle({ timeoutMs: 20_000 });
      expect(first).toMatchObject({ status: 'idle', turn: 1, model: 'demo', title: 'Plan a garden.' });
      expect(first.todos.map((todo) => todo.status)).toEqual(['completed', 'in_progress', 'pending']);
      expect(first.last_message?.content).toContain('demo model');

      const messageId = await session.send('Now water it.');
      const second = await session.waitUntilIdle({ messageId, timeoutMs: 20_000 });
      expect(second.turn).toBe(2);
      const transcript = await session.transcript();
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
      expect((await env.client.workflow.getHandle(session.id).describe()).status.name).toBe('RUNNING');
    });
  });

  it('shows a small tree with the demo model when asked to delegate', async () => {
    await withWorker(env, demoModel, async (taskQueue) => {
      const session = await start(taskQueue, { instruction: 'Please delegate the garden plan.' });
      const snapshot = await session.waitUntilIdle({ timeoutMs: 20_000 });
      expect(snapshot.children).toEqual([expect.objectContaining({ title: 'Demo helper', mode: 'sync', status: 'completed' })]);
      const tool = (await session.transcript()).find((entry) => entry.role === 'tool');
      expect(tool?.name).toBe('subAgent');
      expect(tool?.is_error).toBeUndefined();
      expect(JSON.parse(tool!.content)).toMatchObject({ status: 'completed', content: expect.stringContaining('demo model') });
      expect(snapshot.last_message?.content).toContain('demo model');
    });
  });

  it('does not grow the tree or ask anything when a sub-agent notice quotes "delegate" and "ask"', async () => {
    await withWorker(env, demoModel, async (taskQueue) => {
      // The sub-agent has no tools, so it answers with a reply that quotes its instruction, words and all.
      const child = { title: 'Quoter', instruction: 'Please delegate this and ask me first.', mode: 'async', tools: [] };
      const session = await start(taskQueue, { instruction: `/tool subAgent ${JSON.stringify(child)}` });
      await waitUntil(async () => (await session.snapshot()).turn >= 2 && (await session.snapshot()).status === 'idle');
      const snapshot = await session.snapshot();
      expect(snapshot.children).toEqual([expect.objectContaining({ title: 'Quoter', status: 'completed' })]);
      expect(snapshot.pending_questions).toEqual([]);
      const notice = (await session.transcript()).filter((entry) => entry.role === 'user').at(-1);
      expect(notice?.content).toMatch(/^\[Sub-agent notice\][\s\S]*delegate this and ask me/);
      expect(snapshot.last_message?.content).toContain('I read a sub-agent notice');
    });
  });

  it('delivers a message sent twice with the same id only once', async () => {
    await withWorker(env, demoModel, async (taskQueue) => {
      const session = await start(taskQueue, { instruction: 'Hello.' });
      await session.waitUntilIdle({ timeoutMs: 20_000 });
      await session.send('Once only.', { id: 'message-1' });
      await session.send('Once only.', { id: 'message-1' });
      await session.waitUntilIdle({ messageId: 'message-1', timeoutMs: 20_000 });
      const users = (await session.transcript()).filter((entry) => entry.role === 'user');
      expect(users.map((entry) => entry.content)).toEqual(['Hello.', 'Once only.']);
    });
  });

  it('returns malformed and unknown tool calls to the model as tool errors without failing', async () => {
    await withWorker(env, demoModel, async (taskQueue) => {
      const session = await start(taskQueue, {
        instruction: [
          '/tool todoWrite {"todos": [',
          '/tool launchRockets {}',
          '/tool todoWrite {"todos":[{"content":"a","status":"in_progress"},{"content":"b","status":"in_progress"}]}',
        ].join('\n'),
      });
      const snapshot = await session.waitUntilIdle({ timeoutMs: 20_000 });
      expect(snapshot.status).toBe('idle');
      const tools = (await session.transcript()).filter((entry) => entry.role === 'tool');
      expect(tools.map((entry) => entry.is_error)).toEqual([true, true, true]);
      expect(tools[0]!.content).toMatch(/not valid JSON/);
      expect(tools[1]!.content).toMatch(/Unknown tool "launchRockets"/);
      expect(tools[2]!.content).toMatch(/At most one todo may be in_progress/);
      expect(snapshot.todos).toEqual([]);
    });
  });

  it('offers only the tools a session was given', async () => {
    await withWorker(env, demoModel, async (taskQueue) => {
      const session = await start(taskQueue, { instruction: '/tool todoWrite {"todos":[]}', tools: [] });
      await session.waitUntilIdle({ timeoutMs: 20_000 });
      const tool = (await session.transcript()).find((entry) => entry.role === 'tool');
      expect(tool).toMatchObject({ is_error: true, content: expect.stringContaining('Available tools: none') });
    });
  });

  it('ends a turn that reaches the tool round limit with a notice', async () => {
    fake.fallback = () => ({ toolCalls: [{ name: 'todoWrite', arguments: '{"todos":[]}' }] });
    const model = { apiKey: 'sk-test', baseURL: fake.baseURL, defaultModel: 'looping-model', requestTimeoutMs: 5_000 };
    await withWorker(env, model, async (taskQueue) => {
      const session = await start(taskQueue, { instruction: 'Loop forever.', max_tool_rounds: 3 });
      const snapshot = await session.waitUntilIdle({ timeoutMs: 20_000 });
      expect(snapshot.status).toBe('idle');
      expect(snapshot.last_message).toMatchObject({ role: 'notice', content: expect.stringContaining('after 3 model calls') });
      expect(fake.requestsFor('Loop forever.')).toHaveLength(3);
    });
  });

  it('completes a sub-agent session when its turn is done and returns its final message', async () => {
    await withWorker(env, demoModel, async (taskQueue) => {
      const parent = randomUUID();
      const session = await start(taskQueue, { instruction: 'Sub task.', parent_session_id: parent, root_session_id: parent });
      const result = await session.result();
      expect(result).toMatchObject({ session_id: session.id, status: 'completed' });
      expect(result.final_message).toContain('demo model');
      await expect(session.send('Anything else?')).rejects.toThrow(/has ended \(completed\); it takes no more messages/);
    });
  });

  it('ends as Canceled with status stopped when the session is stopped', async () => {
    await withWorker(env, demoModel, async (taskQueue) => {
      const session = await start(taskQueue, { instruction: 'Wait for me.' });
      await session.waitUntilIdle({ timeoutMs: 20_000 });
      await session.stop();
      const result = await session.result();
      expect(result.status).toBe('stopped');
      expect(result.final_message).toContain('demo model');
      expect((await env.client.workflow.getHandle(session.id).describe()).status.name).toBe('CANCELLED');
      expect((await session.snapshot()).status).toBe('stopped');
    });
  });
});
