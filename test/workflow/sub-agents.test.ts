import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SessionHandle } from '../../src/client/session-handle.js';
import type { SessionInput } from '../../src/shared/session.js';
import { call, toolResults } from '../support/scripted-model.js';
import type { RecordedRequest } from '../support/fake-openai.js';
import { withWorker } from '../support/time-skipping.js';
import { scriptedTimeSkipping } from '../support/scripted-time-skipping.js';
import { waitUntil } from '../support/wait.js';
import { runHistories } from '../support/run-histories.js';

describe('sub-agents (time-skipping server, scripted model)', () => {
  const scripted = scriptedTimeSkipping('tree-model');
  const { fake, model } = scripted;

  const start = (taskQueue: string, input: SessionInput, id?: string) => scripted.start(taskQueue, input, id);

  const { unique } = scripted;

  it('runs a sync sub-agent and returns its final message as the tool result', async () => {
    const root = unique('root sync');
    const child = unique('child sync');
    model.script(root, call('subAgent', { title: 'Research', instruction: child, mode: 'sync' }), { content: 'Root done.' });
    model.script(child, { content: 'Child found the answer.' });
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction: root });
      const snapshot = await session.waitUntilIdle({ timeoutMs: 30_000 });
      expect(snapshot.last_message?.content).toBe('Root done.');
      const result = JSON.parse(toolResults(fake.requestsFor(root)[1]!)[0]!);
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
      const description = await scripted.env.client.workflow.getHandle(result.sub_session_id).describe();
      expect(description.parentExecution?.workflowId).toBe(session.id);
      expect(description.status.name).toBe('COMPLETED');
    });
  });

  it('notifies an idle parent exactly once when an async sub-agent finishes, and lists it while it runs', async () => {
    const root = unique('root async');
    const child = unique('child async');
    model.script(
      root,
      call('subAgent', { title: 'Background job', instruction: child }),
      call('listSubAgent', {}),
      { content: 'Spawned and listed.' },
      { content: 'Read the notice.' },
    );
    model.script(child, { content: 'Background result.', delayMs: 1_500 });
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction: root });
      await session.waitUntilIdle({ timeoutMs: 30_000 });
      const spawned = JSON.parse(toolResults(fake.requestsFor(root)[1]!)[0]!);
      expect(spawned).toMatchObject({ status: 'running', sub_session_id: expect.any(String) });
      const listed = JSON.parse(toolResults(fake.requestsFor(root)[2]!)[1]!);
      expect(listed).toEqual([
        expect.objectContaining({
          sub_session_id: spawned.sub_session_id,
          title: 'Background job',
          status: expect.stringMatching(/running|idle/),
        }),
      ]);

      await waitUntil(async () => (await session.snapshot()).turn === 2 && (await session.snapshot()).status === 'idle');
      const notices = (await session.transcript()).filter(
        (entry) => entry.role === 'user' && entry.content.startsWith('[Sub-agent notice]'),
      );
      expect(notices).toHaveLength(1);
      expect(notices[0]!.content).toContain('Background result.');
      expect((await session.snapshot()).children[0]).toMatchObject({ status: 'completed', mode: 'async' });
    });
  });

  it('sends a message to a running sub-agent and reads its latest message while running and after it finished', async () => {
    const root = unique('root messages');
    const child = unique('child messages');
    let childId = '';
    const idFrom = (request: Parameters<typeof toolResults>[0]) => JSON.parse(toolResults(request)[0]!).sub_session_id as string;
    model.script(
      root,
      call('subAgent', { title: 'Worker', instruction: child }),
      (request) => {
        childId = idFrom(request);
        return call('sendMessageToSubAgent', { sub_session_id: childId, message: 'Also cover the edge cases.' });
      },
      () => call('getSubAgentMessage', { sub_session_id: childId }),
      { content: 'Waiting for the worker.' },
      () => call('getSubAgentMessage', { sub_session_id: childId }),
      { content: 'Worker is done.' },
    );
    model.script(child, { content: 'First pass done.', delayMs: 1_000 }, { content: 'Edge cases covered too.' });
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction: root });
      await session.waitUntilIdle({ timeoutMs: 30_000 });
      const [sent, running] = toolResults(fake.requestsFor(root)[3]!).slice(1);
      expect(sent).toMatch(/Message delivered to sub-agent "Worker"/);
      expect(JSON.parse(running!)).toMatchObject({
        sub_session_id: childId,
        sub_session_title: 'Worker',
        sub_session_status: expect.stringMatching(/running|idle/),
      });

      await waitUntil(async () => (await session.snapshot()).last_message?.content === 'Worker is done.');
      const finished = JSON.parse(toolResults(fake.requestsFor(root)[5]!).at(-1)!);
      expect(finished).toMatchObject({
        sub_session_id: childId,
        sub_session_status: 'completed',
        role: 'assistant',
        content: 'Edge cases covered too.',
        message_id: expect.any(String),
        created_at: expect.any(String),
      });
      const childTranscript = await new SessionHandle(childId, scripted.env.client).transcript();
      expect(childTranscript.filter((entry) => entry.role === 'user').map((entry) => entry.content)).toEqual([
        child,
        'Also cover the edge cases.',
      ]);
    });
  });

  it("completes a three-level tree: a sub-agent handles its own sub-agent's notice before it finishes", async () => {
    const root = unique('root three levels');
    const middle = unique('middle three levels');
    const leaf = unique('leaf three levels');
    model.script(root, call('subAgent', { title: 'Middle', instruction: middle, mode: 'sync' }), { content: 'Root has the answer.' });
    model.script(
      middle,
      call('subAgent', { title: 'Leaf', instruction: leaf }),
      { content: 'Middle waits.' },
      { content: 'Middle saw the leaf result.' },
    );
    model.script(leaf, { content: 'Leaf result.', delayMs: 500 });
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction: root });
      const snapshot = await session.waitUntilIdle({ timeoutMs: 30_000 });
      expect(snapshot.last_message?.content).toBe('Root has the answer.');
      const middleResult = JSON.parse(toolResults(fake.requestsFor(root)[1]!)[0]!);
      expect(middleResult).toMatchObject({ status: 'completed', content: 'Middle saw the leaf result.' });
      const middleRequests = fake.requestsFor(middle);
      expect(middleRequests).toHaveLength(3);
      expect(middleRequests[2]!.body.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringContaining('Leaf result.') });
      const tree = await session.tree();
      expect(tree.children[0]).toMatchObject({
        title: 'Middle',
        status: 'completed',
        mode: 'sync',
        children: [{ title: 'Leaf', status: 'completed', mode: 'async' }],
      });
    });
  });

  it('returns a clear stopped result to a parent waiting on a sync sub-agent that is stopped', async () => {
    const root = unique('root sync stopped');
    const child = unique('child sync stopped');
    model.script(root, call('subAgent', { title: 'Slow', instruction: child, mode: 'sync' }), { content: 'The helper was stopped.' });
    model.script(child, { content: 'never', delayMs: 60_000 });
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction: root });
      await waitUntil(async () => (await session.snapshot()).children.length === 1);
      const childId = (await session.snapshot()).children[0]!.sub_session_id;
      const stopped = await new SessionHandle(childId, scripted.env.client).stop();
      expect(stopped).toEqual({ stopped_sessions: [{ sub_session_id: childId, title: 'Slow' }], total_stopped: 1 });
      const snapshot = await session.waitUntilIdle({ timeoutMs: 30_000 });
      expect(snapshot.last_message?.content).toBe('The helper was stopped.');
      expect(JSON.parse(toolResults(fake.requestsFor(root)[1]!)[0]!)).toMatchObject({ sub_session_id: childId, status: 'stopped' });
      expect(snapshot.children[0]!.status).toBe('stopped');
    });
  });

  it('continues a sub-agent that its loop keeps alive as new once its run is long, and its sync parent still gets its answer', async () => {
    const root = unique('root of a ticker');
    const child = unique('ticker');
    model.script(root, call('subAgent', { title: 'Ticker', instruction: child, mode: 'sync' }), { content: 'The ticker is done.' });
    model.script(
      child,
      call('createLoop', { prompt: 'Tick', interval_seconds: 10, max_turns: 25 }),
      { content: 'Loop set.' },
      ...Array.from({ length: 25 }, (_, index) => ({ content: `tick ${index}` })),
    );
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction: root, history_limit: 100 });
      await waitUntil(() => fake.requestsFor(child).length >= 2, 30_000);
      // 25 firings, ten seconds apart, on the server's skipped clock.
      await scripted.env.sleep('10 minutes');
      await waitUntil(async () => (await session.snapshot()).last_message?.content === 'The ticker is done.', 120_000);
      const result = JSON.parse(toolResults(fake.requestsFor(root)[1]!)[0]!);
      expect(result).toMatchObject({ status: 'completed', content: 'tick 24' });

      // The sub-agent ran in several runs, each ended by continuing as new near the limit it was handed.
      const runs = (await runHistories(scripted.env.client, result.sub_session_id)).map((events) => events.length);
      expect(runs.length).toBeGreaterThanOrEqual(3);
      for (const events of runs) expect(events).toBeLessThan(150);
      const ticks = (await new SessionHandle(result.sub_session_id, scripted.env.client).transcript()).filter(
        (entry) => entry.role === 'assistant' && entry.content.startsWith('tick '),
      );
      expect(ticks.at(-1)!.content).toBe('tick 24');
    });
  });

  it('stops the sub-agents a terminated root left running, walking the tree by queries where visibility cannot list it', async () => {
    const root = unique('root terminated');
    const child = unique('child of terminated');
    model.script(root, call('subAgent', { title: 'Orphan', instruction: child }), { content: 'Started.' });
    model.script(child, call('wait', { seconds: 3_600, reason: 'a long job' }), { content: 'never' });
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction: root });
      await session.waitUntilIdle({ timeoutMs: 30_000 });
      const childId = (await session.snapshot()).children[0]!.sub_session_id;
      await waitUntil(async () => (await new SessionHandle(childId, scripted.env.client).snapshot()).waiting !== null);
      await scripted.env.client.workflow.getHandle(session.id).terminate('terminated by an operator');
      expect((await scripted.env.client.workflow.getHandle(childId).describe()).status.name).toBe('RUNNING');

      const stopped = await session.stop();
      expect(stopped).toEqual({ stopped_sessions: [{ sub_session_id: childId, title: 'Orphan' }], total_stopped: 1 });
      expect((await scripted.env.client.workflow.getHandle(childId).describe()).status.name).toBe('CANCELLED');
    });
  });

  it('stops the middle of a three-level tree leaves first, and the root goes on', async () => {
    const root = unique('root stop');
    const middle = unique('middle stop');
    const leaf = unique('leaf stop');
    let middleId = '';
    model.script(
      root,
      call('subAgent', { title: 'Middle', instruction: middle }),
      (request) => {
        middleId = JSON.parse(toolResults(request)[0]!).sub_session_id;
        return { ...call('stopSubAgent', { sub_session_id: middleId }), delayMs: 1_500 };
      },
      { content: 'Stopped the branch.' },
    );
    model.script(middle, call('subAgent', { title: 'Leaf', instruction: leaf }), { content: 'Middle waits for its leaf.' });
    model.script(leaf, { content: 'Leaf would answer much later.', delayMs: 60_000 });
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction: root });
      const snapshot = await session.waitUntilIdle({ timeoutMs: 45_000 });
      expect(snapshot.last_message?.content).toBe('Stopped the branch.');
      const stopped = JSON.parse(toolResults(fake.requestsFor(root)[2]!)[1]!);
      expect(stopped.total_stopped).toBe(2);
      expect(stopped.stopped_sessions.map((entry: { title: string }) => entry.title)).toEqual(['Leaf', 'Middle']);
      const [leafId] = stopped.stopped_sessions.map((entry: { sub_session_id: string }) => entry.sub_session_id);

      const leafDescription = await scripted.env.client.workflow.getHandle(leafId).describe();
      const middleDescription = await scripted.env.client.workflow.getHandle(middleId).describe();
      expect(leafDescription.status.name).toBe('CANCELLED');
      expect(middleDescription.status.name).toBe('CANCELLED');
      expect(leafDescription.closeTime!.getTime()).toBeLessThanOrEqual(middleDescription.closeTime!.getTime());
      expect((await scripted.env.client.workflow.getHandle(session.id).describe()).status.name).toBe('RUNNING');
      expect(snapshot.children[0]).toMatchObject({ sub_session_id: middleId, status: 'stopped' });
    });
  });

  it('refuses to target the session itself or a session outside its subtree', async () => {
    const root = unique('root permissions');
    const stranger = randomUUID();
    const selfId = randomUUID();
    model.script(
      root,
      call('getSubAgentMessage', { sub_session_id: selfId }),
      call('stopSubAgent', { sub_session_id: stranger }),
      call('sendMessageToSubAgent', { sub_session_id: stranger, message: 'hello' }),
      { content: 'Refused as expected.' },
    );
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction: root }, selfId);
      await session.waitUntilIdle({ timeoutMs: 30_000 });
      const results = toolResults(fake.requestsFor(root)[3]!);
      expect(results).toHaveLength(3);
      expect(results[0]).toMatch(/^Error: A session cannot target itself/);
      for (const result of results.slice(1)) expect(result).toMatch(/^Error: Session [0-9a-f-]{36} is not a sub-agent of this session/);
    });
  });

  it("lets a sub-agent list and read its sibling, as the tool specification's tree scope says, but not stop or message it", async () => {
    const root = unique('root siblings');
    const reader = unique('reader sibling');
    const other = unique('other sibling');
    let siblingId: string | undefined;
    // The reader lists the tree until its sibling shows, then reads it, tries to stop and message it, and reads the root.
    const readerStep = (request: RecordedRequest) => {
      const results = toolResults(request);
      const last = results.at(-1);
      if (siblingId === undefined) {
        const listed = last ? (JSON.parse(last) as { sub_session_id: string; title: string }[]) : [];
        siblingId = listed.find((entry) => entry.title === 'Other')?.sub_session_id;
        if (siblingId === undefined) return call('listSubAgent', {});
        return call('getSubAgentMessage', { sub_session_id: siblingId });
      }
      const calls = [
        call('stopSubAgent', { sub_session_id: siblingId }),
        call('sendMessageToSubAgent', { sub_session_id: siblingId, message: 'hello' }),
        call('getSubAgentMessage', { sub_session_id: rootId }),
      ];
      return calls[results.filter((text) => !text.startsWith('[')).length - 1] ?? { content: 'Reader done.' };
    };
    let rootId = '';
    model.script(
      root,
      {
        toolCalls: [
          { name: 'subAgent', arguments: JSON.stringify({ title: 'Reader', instruction: reader }) },
          { name: 'subAgent', arguments: JSON.stringify({ title: 'Other', instruction: other }) },
        ],
      },
      { content: 'Both started.' },
      { content: 'Noted.' },
      { content: 'Noted.' },
    );
    model.script(reader, ...Array.from({ length: 30 }, () => readerStep));
    model.script(other, { content: 'Other is done.', delayMs: 3_000 });
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction: root });
      rootId = session.id;
      await waitUntil(async () => {
        const { children } = await session.snapshot();
        return children.length === 2 && children.every((child) => child.status === 'completed');
      }, 60_000);
      const results = toolResults(fake.requestsFor(reader).at(-1)!);
      const listed = JSON.parse(results.find((text) => text.includes('"title":"Other"'))!);
      expect(listed.map((entry: { title: string }) => entry.title)).toEqual(['Other']);
      const [read, stop, send, readRoot] = results.slice(-4);
      expect(JSON.parse(read!)).toMatchObject({ sub_session_id: siblingId, sub_session_title: 'Other' });
      expect(stop).toMatch(/^Error: Session [0-9a-f-]{36} is not a sub-agent of this session/);
      expect(send).toMatch(/^Error: Session [0-9a-f-]{36} is not a sub-agent of this session/);
      expect(readRoot).toMatch(/^Error: Session [0-9a-f-]{36} is not a sub-agent in this session's tree/);
    });
  });

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
        const session = await start(taskQueue, { instruction: root });
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
        const session = await start(taskQueue, { instruction: root });
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

  it('refuses more running sub-agents than the fan-out limit and unknown tool names', async () => {
    const root = unique('root fan-out');
    const first = unique('first child');
    model.script(
      root,
      call('subAgent', { title: 'First', instruction: first }),
      call('subAgent', { title: 'Second', instruction: 'never starts' }),
      call('subAgent', { title: 'Bad tools', instruction: 'never starts either', tools: ['todoWrite', 'rm -rf'] }),
      { content: 'Limits hold.' },
      { content: 'Noted the notice.' },
    );
    model.script(first, { content: 'First done.', delayMs: 1_000 });
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction: root, max_children: 1 });
      await session.waitUntilIdle({ timeoutMs: 30_000 });
      const results = toolResults(fake.requestsFor(root)[3]!);
      expect(results[1]).toMatch(/already runs 1 sub-agents, the most it may run at once \(1\)/);
      expect(results[2]).toMatch(/Unknown tool name\(s\) for the sub-agent: rm -rf/);
      expect(fake.requestsFor('never starts')).toHaveLength(0);
      expect(fake.requestsFor('never starts either')).toHaveLength(0);
      expect((await session.snapshot()).children).toHaveLength(1);
    });
  });

  it('gives a sub-agent started with tools [] no tools at all', async () => {
    const root = unique('root text only');
    const child = unique('text-only child');
    model.script(root, call('subAgent', { title: 'Writer', instruction: child, mode: 'sync', tools: [] }), { content: 'ok' });
    model.script(child, { content: 'Just text.' });
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction: root });
      await session.waitUntilIdle({ timeoutMs: 30_000 });
      expect(fake.requestsFor(child)[0]!.body.tools).toBeUndefined();
      expect(fake.requestsFor(root)[0]!.body.tools?.map((tool) => tool.function.name)).toContain('subAgent');
    });
  });

  it("gives a sub-agent started without tools its parent's tools except the automation tools, and them only when named", async () => {
    const root = unique('root automation tools');
    const plain = unique('child without named tools');
    const named = unique('child naming automation_create');
    model.script(
      root,
      call('subAgent', { title: 'Plain', instruction: plain, mode: 'sync' }),
      call('subAgent', { title: 'Scheduler', instruction: named, mode: 'sync', tools: ['automation_create', 'todoWrite'] }),
      { content: 'Both done.' },
    );
    model.script(plain, { content: 'Plain done.' });
    model.script(named, { content: 'Scheduler done.' });
    const names = (label: string) => fake.requestsFor(label)[0]!.body.tools?.map((tool) => tool.function.name) ?? [];
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction: root });
      await session.waitUntilIdle({ timeoutMs: 30_000 });
      expect(names(root)).toEqual(expect.arrayContaining(['automation_create', 'automation_run_wait', 'subAgent', 'todoWrite']));
      expect(names(plain)).toEqual(names(root).filter((name) => !name.startsWith('automation_')));
      expect(names(named)).toEqual(['todoWrite', 'automation_create']);
    });
  });

  it('refuses a sub-agent deeper than the depth limit with a tool error', async () => {
    const root = unique('root depth');
    const child = unique('child depth');
    model.script(root, call('subAgent', { title: 'Only level', instruction: child, mode: 'sync' }), { content: 'Root done.' });
    model.script(child, call('subAgent', { title: 'Too deep', instruction: 'never runs' }), { content: 'Could not go deeper.' });
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction: root, max_depth: 1 });
      await session.waitUntilIdle({ timeoutMs: 30_000 });
      expect(toolResults(fake.requestsFor(child)[1]!)[0]).toMatch(/at most 1 levels below the root/);
      expect(fake.requestsFor('never runs')).toHaveLength(0);
    });
  });
});
