import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  createTestArbor,
  delayed,
  ScriptedModel,
  text,
  toolCall,
  toolCalls,
  type ModelRequest,
  type TestArbor,
} from '../../src/testing.js';
import { call, toolResults } from '../support/scripted-model.js';
import { withWorker } from '../support/time-skipping.js';
import { scriptedTimeSkipping } from '../support/scripted-time-skipping.js';
import { waitUntil } from '../support/wait.js';

/** Every tool result the request carries, from the start of its transcript, as the model wrote them (unparsed). */
const allToolResults = (request: ModelRequest): string[] =>
  request.messages.filter((message) => message.role === 'tool').map((message) => message.content ?? '');

const subSessionIdOf = (result: unknown) => (result as { sub_session_id: string }).sub_session_id;

describe('sub-agents (the testing kit on the time-skipping server)', () => {
  const model = new ScriptedModel();
  let arbor: TestArbor;
  const unique = (label: string) => `${label} ${randomUUID()}`;

  beforeAll(async () => {
    arbor = await createTestArbor({ model, modelName: 'tree-model', workflowBundlePath: inject('workflowBundlePath') });
  });

  afterAll(async () => {
    await arbor?.teardown();
  });

  it('runs a sync sub-agent and returns its final message as the tool result', async () => {
    const root = unique('root sync');
    const child = unique('child sync');
    model.forInstruction(root, toolCall('subAgent', { title: 'Research', instruction: child, mode: 'sync' }), text('Root done.'));
    model.forInstruction(child, text('Child found the answer.'));
    const session = await arbor.startSession({ profile: 'all', instruction: root });

    const snapshot = await arbor.waitUntilIdle(session);

    expect(snapshot.last_message?.content).toBe('Root done.');
    const result = model.requestsFor(root)[1]!.toolResults[0] as { sub_session_id: string };
    expect(result).toMatchObject({ status: 'completed', content: 'Child found the answer.' });
    expect(snapshot.children).toEqual([
      expect.objectContaining({
        sub_session_id: result.sub_session_id,
        title: 'Research',
        mode: 'sync',
        status: 'completed',
        final_message: 'Child found the answer.',
      }),
    ]);
    const description = await arbor.env.client.workflow.getHandle(result.sub_session_id).describe();
    expect(description.parentExecution?.workflowId).toBe(session.id);
    expect(description.status.name).toBe('COMPLETED');
  });

  it('notifies an idle parent exactly once when an async sub-agent finishes, and lists it while it runs', async () => {
    const root = unique('root async');
    const child = unique('child async');
    model.forInstruction(
      root,
      toolCall('subAgent', { title: 'Background job', instruction: child }),
      toolCall('listSubAgent', {}),
      text('Spawned and listed.'),
      text('Read the notice.'),
    );
    model.forInstruction(child, delayed(1_500, text('Background result.')));
    const session = await arbor.startSession({ profile: 'all', instruction: root });
    await arbor.waitUntilIdle(session);
    const spawned = model.requestsFor(root)[1]!.toolResults[0];
    expect(spawned).toMatchObject({ status: 'running', sub_session_id: expect.any(String) });
    const listed = model.requestsFor(root)[2]!.toolResults[0];
    expect(listed).toEqual([
      expect.objectContaining({
        sub_session_id: subSessionIdOf(spawned),
        title: 'Background job',
        status: expect.stringMatching(/running|idle/),
      }),
    ]);

    await arbor.settle(session);

    const snapshot = await arbor.waitUntilIdle(session);
    expect(snapshot.turn).toBe(2);
    const notices = (await arbor.transcript(session)).filter(
      (entry) => entry.role === 'user' && entry.content.startsWith('[Sub-agent notice]'),
    );
    expect(notices).toHaveLength(1);
    expect(notices[0]!.content).toContain('Background result.');
    expect(snapshot.children[0]).toMatchObject({ status: 'completed', mode: 'async' });
  });

  it('sends a message to a running sub-agent and reads its latest message while running and after it finished', async () => {
    const root = unique('root messages');
    const child = unique('child messages');
    let childId = '';
    model.forInstruction(
      root,
      toolCall('subAgent', { title: 'Worker', instruction: child }),
      (request) => {
        childId = subSessionIdOf(request.toolResults[0]);
        return toolCall('sendMessageToSubAgent', { sub_session_id: childId, message: 'Also cover the edge cases.' });
      },
      () => toolCall('getSubAgentMessage', { sub_session_id: childId }),
      text('Waiting for the worker.'),
      () => toolCall('getSubAgentMessage', { sub_session_id: childId }),
      text('Worker is done.'),
    );
    model.forInstruction(child, delayed(1_000, text('First pass done.')), text('Edge cases covered too.'));
    const session = await arbor.startSession({ profile: 'all', instruction: root });
    await arbor.waitUntilIdle(session);
    const sent = model.requestsFor(root)[2]!.toolResults[0];
    const running = model.requestsFor(root)[3]!.toolResults[0];
    expect(sent).toMatch(/Message delivered to sub-agent "Worker"/);
    expect(running).toMatchObject({
      sub_session_id: childId,
      sub_session_title: 'Worker',
      sub_session_status: expect.stringMatching(/running|idle/),
    });

    await arbor.settle(session);

    expect((await arbor.waitUntilIdle(session)).last_message?.content).toBe('Worker is done.');
    const finished = model.requestsFor(root)[5]!.toolResults.at(-1);
    expect(finished).toMatchObject({
      sub_session_id: childId,
      sub_session_status: 'completed',
      role: 'assistant',
      content: 'Edge cases covered too.',
      message_id: expect.any(String),
      created_at: expect.any(String),
    });
    const childTranscript = await arbor.transcript(childId);
    expect(childTranscript.filter((entry) => entry.role === 'user').map((entry) => entry.content)).toEqual([
      child,
      'Also cover the edge cases.',
    ]);
  });

  it("completes a three-level tree: a sub-agent handles its own sub-agent's notice before it finishes", async () => {
    const root = unique('root three levels');
    const middle = unique('middle three levels');
    const leaf = unique('leaf three levels');
    model.forInstruction(root, toolCall('subAgent', { title: 'Middle', instruction: middle, mode: 'sync' }), text('Root has the answer.'));
    model.forInstruction(
      middle,
      toolCall('subAgent', { title: 'Leaf', instruction: leaf }),
      text('Middle waits.'),
      text('Middle saw the leaf result.'),
    );
    model.forInstruction(leaf, delayed(500, text('Leaf result.')));
    const session = await arbor.startSession({ profile: 'all', instruction: root });

    const snapshot = await arbor.waitUntilIdle(session);

    expect(snapshot.last_message?.content).toBe('Root has the answer.');
    expect(model.requestsFor(root)[1]!.toolResults[0]).toMatchObject({ status: 'completed', content: 'Middle saw the leaf result.' });
    const middleRequests = model.requestsFor(middle);
    expect(middleRequests).toHaveLength(3);
    expect(middleRequests[2]!.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringContaining('Leaf result.') });
    await arbor.settle(session);
    const tree = await session.tree();
    expect(tree.children[0]).toMatchObject({
      title: 'Middle',
      status: 'completed',
      mode: 'sync',
      children: [{ title: 'Leaf', status: 'completed', mode: 'async' }],
    });
  });

  it('returns a clear stopped result to a parent waiting on a sync sub-agent that is stopped', async () => {
    const root = unique('root sync stopped');
    const child = unique('child sync stopped');
    model.forInstruction(root, toolCall('subAgent', { title: 'Slow', instruction: child, mode: 'sync' }), text('The helper was stopped.'));
    model.forInstruction(child, delayed(60_000, text('never')));
    const session = await arbor.startSession({ profile: 'all', instruction: root });
    await waitUntil(async () => (await arbor.snapshot(session)).children.length === 1);
    const childId = (await arbor.snapshot(session)).children[0]!.sub_session_id;

    const stopped = await arbor.client.session(childId).stop();

    expect(stopped).toEqual({ stopped_sessions: [{ sub_session_id: childId, title: 'Slow' }], total_stopped: 1 });
    const snapshot = await arbor.waitUntilIdle(session);
    expect(snapshot.last_message?.content).toBe('The helper was stopped.');
    expect(model.requestsFor(root)[1]!.toolResults[0]).toMatchObject({ sub_session_id: childId, status: 'stopped' });
    expect(snapshot.children[0]!.status).toBe('stopped');
  });

  it('stops the sub-agents a terminated root left running, walking the tree by queries where visibility cannot list it', async () => {
    const root = unique('root terminated');
    const child = unique('child of terminated');
    model.forInstruction(root, toolCall('subAgent', { title: 'Orphan', instruction: child }), text('Started.'));
    model.forInstruction(child, toolCall('wait', { seconds: 3_600, reason: 'a long job' }), text('never'));
    const session = await arbor.startSession({ profile: 'all', instruction: root });
    await arbor.waitUntilIdle(session);
    const childId = (await arbor.snapshot(session)).children[0]!.sub_session_id;
    await arbor.settle(childId);
    expect((await arbor.snapshot(childId)).waiting).not.toBeNull();
    await arbor.env.client.workflow.getHandle(session.id).terminate('terminated by an operator');
    expect((await arbor.env.client.workflow.getHandle(childId).describe()).status.name).toBe('RUNNING');

    const stopped = await session.stop();

    expect(stopped).toEqual({ stopped_sessions: [{ sub_session_id: childId, title: 'Orphan' }], total_stopped: 1 });
    expect((await arbor.env.client.workflow.getHandle(childId).describe()).status.name).toBe('CANCELLED');
  });

  it('stops the middle of a three-level tree leaves first, and the root goes on', async () => {
    const root = unique('root stop');
    const middle = unique('middle stop');
    const leaf = unique('leaf stop');
    let middleId = '';
    model.forInstruction(
      root,
      toolCall('subAgent', { title: 'Middle', instruction: middle }),
      (request) => {
        middleId = subSessionIdOf(request.toolResults[0]);
        return delayed(1_500, toolCall('stopSubAgent', { sub_session_id: middleId }));
      },
      text('Stopped the branch.'),
    );
    model.forInstruction(middle, toolCall('subAgent', { title: 'Leaf', instruction: leaf }), text('Middle waits for its leaf.'));
    model.forInstruction(leaf, delayed(60_000, text('Leaf would answer much later.')));
    const session = await arbor.startSession({ profile: 'all', instruction: root });

    const snapshot = await arbor.waitUntilIdle(session, { timeoutMs: 45_000 });

    expect(snapshot.last_message?.content).toBe('Stopped the branch.');
    const stopped = model.requestsFor(root)[2]!.toolResults[0] as {
      total_stopped: number;
      stopped_sessions: { sub_session_id: string; title: string }[];
    };
    expect(stopped.total_stopped).toBe(2);
    expect(stopped.stopped_sessions.map((entry) => entry.title)).toEqual(['Leaf', 'Middle']);
    const [leafId] = stopped.stopped_sessions.map((entry) => entry.sub_session_id);
    const leafDescription = await arbor.env.client.workflow.getHandle(leafId!).describe();
    const middleDescription = await arbor.env.client.workflow.getHandle(middleId).describe();
    expect(leafDescription.status.name).toBe('CANCELLED');
    expect(middleDescription.status.name).toBe('CANCELLED');
    expect(leafDescription.closeTime!.getTime()).toBeLessThanOrEqual(middleDescription.closeTime!.getTime());
    expect((await arbor.env.client.workflow.getHandle(session.id).describe()).status.name).toBe('RUNNING');
    expect(snapshot.children[0]).toMatchObject({ sub_session_id: middleId, status: 'stopped' });
  });

  it('refuses to target the session itself or a session outside its subtree', async () => {
    const root = unique('root permissions');
    const stranger = randomUUID();
    model.forInstruction(
      root,
      (request) => toolCall('getSubAgentMessage', { sub_session_id: request.sessionId }),
      toolCall('stopSubAgent', { sub_session_id: stranger }),
      toolCall('sendMessageToSubAgent', { sub_session_id: stranger, message: 'hello' }),
      text('Refused as expected.'),
    );
    const session = await arbor.startSession({ profile: 'all', instruction: root });

    await arbor.waitUntilIdle(session);

    const requests = model.requestsFor(root);
    expect(requests[0]!.sessionId).toBe(session.id);
    const results = allToolResults(requests[3]!);
    expect(results).toHaveLength(3);
    expect(results[0]).toMatch(/^Error: A session cannot target itself/);
    for (const result of results.slice(1)) expect(result).toMatch(/^Error: Session [0-9a-f-]{36} is not a sub-agent of this session/);
  });

  it("lets a sub-agent list and read its sibling, as the tool specification's tree scope says, but not stop or message it", async () => {
    const root = unique('root siblings');
    const reader = unique('reader sibling');
    const other = unique('other sibling');
    let siblingId: string | undefined;
    let rootId = '';
    // The reader lists the tree until its sibling shows, then reads it, tries to stop and message it, and reads the root.
    const readerStep = (request: ModelRequest) => {
      const results = allToolResults(request);
      const last = results.at(-1);
      if (siblingId === undefined) {
        const listed = last ? (JSON.parse(last) as { sub_session_id: string; title: string }[]) : [];
        siblingId = listed.find((entry) => entry.title === 'Other')?.sub_session_id;
        if (siblingId === undefined) return toolCall('listSubAgent', {});
        return toolCall('getSubAgentMessage', { sub_session_id: siblingId });
      }
      const calls = [
        toolCall('stopSubAgent', { sub_session_id: siblingId }),
        toolCall('sendMessageToSubAgent', { sub_session_id: siblingId, message: 'hello' }),
        toolCall('getSubAgentMessage', { sub_session_id: rootId }),
      ];
      return calls[results.filter((result) => !result.startsWith('[')).length - 1] ?? text('Reader done.');
    };
    model.forInstruction(
      root,
      toolCalls(['subAgent', { title: 'Reader', instruction: reader }], ['subAgent', { title: 'Other', instruction: other }]),
      text('Both started.'),
      text('Noted.'),
      text('Noted.'),
    );
    model.forInstruction(reader, ...Array.from({ length: 30 }, () => readerStep));
    model.forInstruction(other, delayed(3_000, text('Other is done.')));
    const session = await arbor.startSession({ profile: 'all', instruction: root });
    rootId = session.id;

    await arbor.settle(session, { timeoutMs: 60_000 });

    const { children } = await arbor.snapshot(session);
    expect(children).toHaveLength(2);
    expect(children.map((child) => child.status)).toEqual(['completed', 'completed']);
    const results = allToolResults(model.requestsFor(reader).at(-1)!);
    const listed = JSON.parse(results.find((result) => result.includes('"title":"Other"'))!);
    expect(listed.map((entry: { title: string }) => entry.title)).toEqual(['Other']);
    const [read, stop, send, readRoot] = results.slice(-4);
    expect(JSON.parse(read!)).toMatchObject({ sub_session_id: siblingId, sub_session_title: 'Other' });
    expect(stop).toMatch(/^Error: Session [0-9a-f-]{36} is not a sub-agent of this session/);
    expect(send).toMatch(/^Error: Session [0-9a-f-]{36} is not a sub-agent of this session/);
    expect(readRoot).toMatch(/^Error: Session [0-9a-f-]{36} is not a sub-agent in this session's tree/);
  });

  it('refuses more running sub-agents than the fan-out limit and unknown tool names', async () => {
    const root = unique('root fan-out');
    const first = unique('first child');
    model.forInstruction(
      root,
      toolCall('subAgent', { title: 'First', instruction: first }),
      toolCall('subAgent', { title: 'Second', instruction: 'never starts' }),
      toolCall('subAgent', { title: 'Bad tools', instruction: 'never starts either', tools: ['todoWrite', 'rm -rf'] }),
      text('Limits hold.'),
      text('Noted the notice.'),
    );
    model.forInstruction(first, delayed(1_000, text('First done.')));
    const session = await arbor.startSession({ profile: 'all', instruction: root, max_children: 1 });

    await arbor.waitUntilIdle(session);

    const requests = model.requestsFor(root);
    expect(requests[2]!.toolResults[0]).toMatch(/already runs 1 sub-agents, the most it may run at once \(1\)/);
    expect(requests[3]!.toolResults[0]).toMatch(/Unknown tool name\(s\) for the sub-agent: rm -rf/);
    expect(model.requestsFor('never starts')).toHaveLength(0);
    expect(model.requestsFor('never starts either')).toHaveLength(0);
    expect((await arbor.snapshot(session)).children).toHaveLength(1);
  });

  it("gives a sub-agent started without tools its parent's tools except the automation tools, and them only when named", async () => {
    const root = unique('root automation tools');
    const plain = unique('child without named tools');
    const named = unique('child naming automation_create');
    model.forInstruction(
      root,
      toolCall('subAgent', { title: 'Plain', instruction: plain, mode: 'sync' }),
      toolCall('subAgent', { title: 'Scheduler', instruction: named, mode: 'sync', tools: ['automation_create', 'todoWrite'] }),
      text('Both done.'),
    );
    model.forInstruction(plain, text('Plain done.'));
    model.forInstruction(named, text('Scheduler done.'));
    const names = (label: string) => model.requestsFor(label)[0]!.tools;
    const session = await arbor.startSession({ profile: 'all', instruction: root });

    await arbor.waitUntilIdle(session);

    expect(names(root)).toEqual(expect.arrayContaining(['automation_create', 'automation_run_wait', 'subAgent', 'todoWrite']));
    expect(names(plain)).toEqual(names(root).filter((name) => !name.startsWith('automation_')));
    expect(names(named)).toEqual(['todoWrite', 'automation_create']);
  });

  it('refuses a sub-agent deeper than the depth limit with a tool error', async () => {
    const root = unique('root depth');
    const child = unique('child depth');
    model.forInstruction(root, toolCall('subAgent', { title: 'Only level', instruction: child, mode: 'sync' }), text('Root done.'));
    model.forInstruction(child, toolCall('subAgent', { title: 'Too deep', instruction: 'never runs' }), text('Could not go deeper.'));
    const session = await arbor.startSession({ profile: 'all', instruction: root, max_depth: 1 });

    await arbor.waitUntilIdle(session);

    expect(model.requestsFor(child)[1]!.toolResults[0]).toMatch(/at most 1 levels below the root/);
    expect(model.requestsFor('never runs')).toHaveLength(0);
  });
});

// These stay on the fake OpenAI server: the kit's scripted model answers no `GET /models` and names no models besides
// its default one, and its requests do not say whether a request body carried a `tools` field at all.
describe('sub-agents (time-skipping server, fake OpenAI server)', () => {
  const scripted = scriptedTimeSkipping('tree-model');
  const { fake, model } = scripted;
  const { unique } = scripted;

  it('refuses a sub-agent model the endpoint does not list, naming the models the worker knows, and runs one it lists', async () => {
    const root = unique('root models');
    const listed = unique('child listed model');
    model.script(
      root,
      call('subAgent', { title: 'Ghost', instruction: unique('child ghost model'), mode: 'sync', model: 'ghost-model' }),
      call('subAgent', { title: 'Small', instruction: listed, mode: 'sync', model: 'small-model' }),
      { content: 'Root done.' },
    );
    model.script(listed, { content: 'Small model answered.' });
    fake.models = ['tree-model', 'small-model'];
    try {
      await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
        const session = await scripted.start(taskQueue, { instruction: root });
        const snapshot = await session.waitUntilIdle({ timeoutMs: 30_000 });
        const [refused, ran] = toolResults(fake.requestsFor(root)[2]!);
        expect(refused).toMatch(/^Error: Model "ghost-model" is not one this worker knows, so no sub-agent was started/);
        expect(refused).toContain('Models it knows: tree-model, demo, small-model.');
        expect(JSON.parse(ran!)).toMatchObject({ status: 'completed', content: 'Small model answered.' });
        expect(fake.requestsFor(listed)[0]!.body.model).toBe('small-model');
        expect(fake.requests.some((request) => request.body.model === 'ghost-model')).toBe(false);
        expect(snapshot.children.map((child) => child.title)).toEqual(['Small']);
      });
    } finally {
      fake.models = undefined;
    }
  });

  it("ends a sync sub-agent's turn at once when its model answers 404, and the parent reads why", async () => {
    const root = unique('root gone model');
    const child = unique('child gone model');
    model.script(root, call('subAgent', { title: 'Gone', instruction: child, mode: 'sync', model: 'gone-model' }), {
      content: 'Root done.',
    });
    model.script(child, {
      status: 404,
      body: { error: { message: 'The model `gone-model` does not exist', type: 'invalid_request_error' } },
    });
    fake.models = ['tree-model', 'gone-model'];
    try {
      await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
        const session = await scripted.start(taskQueue, { instruction: root });
        await session.waitUntilIdle({ timeoutMs: 30_000 });
        const result = JSON.parse(toolResults(fake.requestsFor(root)[1]!)[0]!);
        expect(result).toMatchObject({ status: 'failed', content: '' });
        expect(result.error).toContain('the model endpoint answered 404 for model "gone-model": it does not serve that model');
        expect(result.error).toContain('The model `gone-model` does not exist');
        expect(fake.requestsFor(child)).toHaveLength(1);
      });
    } finally {
      fake.models = undefined;
    }
  });

  it('gives a sub-agent started with tools [] no tools at all', async () => {
    const root = unique('root text only');
    const child = unique('text-only child');
    model.script(root, call('subAgent', { title: 'Writer', instruction: child, mode: 'sync', tools: [] }), { content: 'ok' });
    model.script(child, { content: 'Just text.' });
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await scripted.start(taskQueue, { instruction: root });
      await session.waitUntilIdle({ timeoutMs: 30_000 });
      expect(fake.requestsFor(child)[0]!.body.tools).toBeUndefined();
      expect(fake.requestsFor(root)[0]!.body.tools?.map((tool) => tool.function.name)).toContain('subAgent');
    });
  });
});
