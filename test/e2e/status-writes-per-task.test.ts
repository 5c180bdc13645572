import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ArborClient } from '../../src/client.js';
import type { SessionHandle } from '../../src/client/session-handle.js';
import { rootSessionIdKey, statusKey, titleKey } from '../../src/shared/search-attributes.js';
import { defineHostTool } from '../../src/tools.js';
import { createArborWorker, type ArborWorker } from '../../src/worker.js';
import { devServerSettings } from '../support/connection.js';
import { FakeOpenAI } from '../support/fake-openai.js';
import { regionQuestion as question } from '../support/questions.js';
import { call, ScriptedModel } from '../support/scripted-model.js';
import { searchAttributeWrites, statusWrites, tasksWithSeveralWrites } from '../support/search-attribute-writes.js';
import { waitUntil } from '../support/wait.js';

const tools = [
  defineHostTool({
    name: 'wire_money',
    description: 'Wires money to an account.',
    input: z.object({ to: z.string(), eur: z.number() }),
    needsApproval: true,
    run: (args) => ({ wired: args.eur, to: args.to }),
  }),
  defineHostTool({
    name: 'look_up',
    description: 'Looks an account up.',
    input: z.object({ account: z.string() }),
    run: (args) => ({ account: args.account, holder: 'A. Person' }),
  }),
  defineHostTool({
    name: 'refund',
    description: 'Refunds an order; refunds over 100 EUR need approval.',
    input: z.object({ order_id: z.string(), eur: z.number() }),
    needsApproval: ({ eur }) => eur > 100,
    run: (args) => `refunded ${args.eur} EUR on ${args.order_id}`,
  }),
];

describe('search-attribute writes of a session: one per workflow task (dev server, in-process worker, fake model)', () => {
  const fake = new FakeOpenAI();
  const model = new ScriptedModel(fake);
  let worker: ArborWorker;
  let running: Promise<void>;
  let client: ArborClient;

  beforeAll(async () => {
    await fake.start();
    const settings = devServerSettings();
    const modelSettings = { apiKey: 'sk-status-writes', baseURL: fake.baseURL, defaultModel: 'fake-model', requestTimeoutMs: 10_000 };
    worker = await createArborWorker({ connection: settings, model: modelSettings, tools });
    running = worker.run();
    client = await ArborClient.fromSettings(settings);
  });

  afterAll(async () => {
    await client?.close();
    worker?.shutdown();
    await running;
    await fake.stop();
  });

  const historyOf = async (session: SessionHandle) => (await client.temporal.workflow.getHandle(session.id).fetchHistory()).events ?? [];

  async function answerWhenAsked(session: SessionHandle, answers: Parameters<SessionHandle['answer']>[0]): Promise<void> {
    await waitUntil(async () => (await session.pendingQuestions()).length === 1, 60_000);
    await session.answer(answers);
  }

  it('starts a session from the SDK with its identity attributes, so no workflow task writes two', async () => {
    const instruction = `just answer ${randomUUID()}`;
    model.script(instruction, { content: 'Answered.' });
    const session = await client.startSession({ instruction, title: 'Identity at start' });
    await session.waitUntilIdle({ timeoutMs: 60_000 });
    const description = await client.temporal.workflow.getHandle(session.id).describe();
    expect([description.typedSearchAttributes.get(rootSessionIdKey), description.typedSearchAttributes.get(titleKey)]).toEqual([
      session.id,
      'Identity at start',
    ]);
    expect(description.typedSearchAttributes.get(statusKey)).toBe('idle');
    const events = await historyOf(session);
    expect(tasksWithSeveralWrites(events)).toEqual({});
    // An arborSessionV3 asks Temporal no patch, so not even a TemporalChangeVersion is written.
    expect(searchAttributeWrites(events)).toEqual([]);
    expect(events.filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_patch')).toEqual([]);
  });

  it('writes waiting_for_user alone in the workflow task of a round that asks the user', async () => {
    const instruction = `ask first ${randomUUID()}`;
    model.script(instruction, call('askUser', { questions: [question] }), { content: 'Thanks.' });
    const session = await client.startSession({ instruction });
    await answerWhenAsked(session, { [question.question]: question.options[0]!.label });
    await session.waitUntilIdle({ timeoutMs: 60_000 });
    const events = await historyOf(session);
    expect(tasksWithSeveralWrites(events)).toEqual({});
    expect(statusWrites(events)).toEqual(['waiting_for_user', 'running', 'idle']);
  });

  it('asks for approval two seconds into a turn with one write, waiting_for_user, and no running before it', async () => {
    const instruction = `pay late ${randomUUID()}`;
    model.script(instruction, { ...call('wire_money', { to: 'NL01', eur: 900 }), delayMs: 2_300 }, { content: 'Wired.' });
    const session = await client.startSession({ instruction });
    await answerWhenAsked(session, { Approval: 'Approve' });
    await session.waitUntilIdle({ timeoutMs: 60_000 });
    const events = await historyOf(session);
    expect(tasksWithSeveralWrites(events)).toEqual({});
    expect(statusWrites(events)).toEqual(['waiting_for_user', 'running', 'idle']);
  });

  it('asks for approval with one write in a round that also runs a tool that never asks', async () => {
    const instruction = `look and pay ${randomUUID()}`;
    const round = {
      toolCalls: [
        { name: 'look_up', arguments: JSON.stringify({ account: 'NL01' }) },
        { name: 'wire_money', arguments: JSON.stringify({ to: 'NL01', eur: 900 }) },
      ],
      delayMs: 2_300,
    };
    model.script(instruction, round, { content: 'Looked up and wired.' });
    const session = await client.startSession({ instruction });
    await answerWhenAsked(session, { Approval: 'Approve' });
    await session.waitUntilIdle({ timeoutMs: 60_000 });
    const events = await historyOf(session);
    expect(tasksWithSeveralWrites(events)).toEqual({});
    expect(statusWrites(events)).toEqual(['waiting_for_user', 'running', 'idle']);
  });

  it('writes running once a call that may need approval runs without it, in a round two seconds into its turn', async () => {
    const instruction = `refund late ${randomUUID()}`;
    model.script(instruction, { ...call('refund', { order_id: 'A1', eur: 20 }), delayMs: 2_300 }, { content: 'Refunded.' });
    const session = await client.startSession({ instruction });
    const snapshot = await session.waitUntilIdle({ timeoutMs: 60_000 });
    expect(snapshot.last_message?.content).toBe('Refunded.');
    const events = await historyOf(session);
    expect(tasksWithSeveralWrites(events)).toEqual({});
    expect(statusWrites(events)).toEqual(['running', 'idle']);
    // Written just before the tool's activity is scheduled, after the local activity that asked the tool.
    const runningAt = events.findIndex(
      (event) => event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.['ArborStatus'],
    );
    expect(events[runningAt + 1]?.activityTaskScheduledEventAttributes?.activityType?.name).toBe('tool:refund');
  });

  it('writes no running for a last round, two seconds into its turn, whose calls finish in their workflow task', async () => {
    const instruction = `todos then stop ${randomUUID()}`;
    const round = {
      toolCalls: [
        { name: 'todoWrite', arguments: JSON.stringify({ todos: [{ content: 'Note it', status: 'completed' }] }) },
        { name: 'stopConversation', arguments: '{}' },
      ],
      delayMs: 2_300,
    };
    model.script(instruction, round);
    // stopConversation is a soai and all tool.
    const session = await client.startSession({ instruction, profile: 'all' });
    const snapshot = await session.waitUntilIdle({ timeoutMs: 60_000 });
    expect(snapshot.todos.map((todo) => todo.content)).toEqual(['Note it']);
    const events = await historyOf(session);
    expect(tasksWithSeveralWrites(events)).toEqual({});
    expect(statusWrites(events)).toEqual([]);
  });

  it('writes running as the turn goes on to a model call after a round, two seconds in, that finished in its task', async () => {
    const instruction = `todos then answer ${randomUUID()}`;
    model.script(
      instruction,
      { ...call('todoWrite', { todos: [{ content: 'Note it', status: 'in_progress' }] }), delayMs: 2_300 },
      { content: 'Noted.', delayMs: 500 },
    );
    const session = await client.startSession({ instruction });
    const snapshot = await session.waitUntilIdle({ timeoutMs: 60_000 });
    expect(snapshot.last_message?.content).toBe('Noted.');
    const events = await historyOf(session);
    expect(tasksWithSeveralWrites(events)).toEqual({});
    expect(statusWrites(events)).toEqual(['running', 'idle']);
    const runningAt = events.findIndex(
      (event) => event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.['ArborStatus'],
    );
    expect(events[runningAt + 1]?.activityTaskScheduledEventAttributes?.activityType?.name).toBe('callModel');
  });

  it('writes a sub-agent’s first waiting_for_user alone in its workflow task', async () => {
    const instruction = `delegate a question ${randomUUID()}`;
    const childInstruction = `ask the user ${randomUUID()}`;
    model
      .script(instruction, call('subAgent', { title: 'Asker', instruction: childInstruction, mode: 'sync' }), { content: 'Asked.' })
      .script(childInstruction, call('askUser', { questions: [question] }), { content: 'Got it.' });
    const session = await client.startSession({ instruction });
    await answerWhenAsked(session, { [question.question]: question.options[0]!.label });
    const snapshot = await session.waitUntilIdle({ timeoutMs: 60_000 });
    expect(snapshot.last_message?.content).toBe('Asked.');
    const child = client.session(snapshot.children[0]!.sub_session_id);
    const events = await historyOf(child);
    expect(tasksWithSeveralWrites(events)).toEqual({});
    expect(statusWrites(events)[0]).toBe('waiting_for_user');
    expect(events.filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_patch')).toEqual([]);
  });
});
