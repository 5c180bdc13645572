import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestArbor, ScriptedModel, text, toolCall, toolCalls, type TestArbor } from '../../src/testing.js';
import { ArborClientError } from '../../src/client.js';
import type { SessionSnapshot } from '../../src/shared/session.js';
import { runCli } from '../support/processes.js';
import { waitUntil } from '../support/wait.js';

const sortedKeys = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(sortedKeys)
    : value !== null && typeof value === 'object'
      ? Object.fromEntries(
          Object.entries(value)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([key, entry]) => [key, sortedKeys(entry)]),
        )
      : value;

const todo = (content: string) => ({ todos: [{ content, status: 'pending', activeForm: `Doing ${content}` }] });

describe('forking a session or a whole tree', () => {
  const model = new ScriptedModel();
  let arbor: TestArbor;

  beforeAll(async () => {
    arbor = await createTestArbor({
      model,
      server: { address: inject('temporalAddress') },
      workflowBundlePath: inject('workflowBundlePath'),
      waitTimeoutMs: 60_000,
    });
  });

  afterAll(async () => {
    await arbor?.teardown();
  });

  /** A session's history as Temporal stores it, every field and byte, with map keys in one order (the server's vary). */
  async function histories(sessionId: string): Promise<string> {
    const handle = arbor.env.client.workflow.getHandle(sessionId);
    return JSON.stringify(sortedKeys(JSON.parse(JSON.stringify(await handle.fetchHistory()))));
  }

  it('gives a session forked at an earlier turn end that turn’s state, then lets it diverge while the source stays byte-identical', async () => {
    const instruction = 'Plan the first thing, then the second';
    model.forInstruction(
      instruction,
      toolCall('todoWrite', todo('First')),
      text('Turn one done.'),
      toolCall('todoWrite', todo('Second')),
      text('Turn two done.'),
      toolCall('todoWrite', todo('Another way')),
      text('The fork went its own way.'),
    );
    const source = await arbor.startSession({ profile: 'all', instruction });
    await arbor.waitUntilIdle(source);
    await source.send('Now the second');
    const sourceEnd = await waitForTurn(source.id, 2);
    await arbor.settle(source);
    const before = await histories(source.id);

    const fork = await source.fork({ at: 4 });

    const forked = await arbor.client.session(fork.id).snapshot();
    expect(forked).toMatchObject({ forked_from: { session_id: source.id, position: 4 }, message_count: 4, turn: 1 });
    expect(forked.todos.map((item) => item.content)).toEqual(['First']);
    expect(forked.last_message?.content).toBe('Turn one done.');
    await fork.send('Try another way');
    const diverged = await waitForTurn(fork.id, 2);
    expect(diverged.todos.map((item) => item.content)).toEqual(['Another way']);
    expect(diverged.last_message?.content).toBe('The fork went its own way.');
    const transcript = await fork.transcript();
    expect(transcript.slice(0, 4)).toEqual((await source.transcript()).slice(0, 4));

    expect(await histories(source.id)).toBe(before);
    const sourceNow = await source.snapshot();
    expect(sourceNow.todos.map((item) => item.content)).toEqual(['Second']);
    expect(sourceNow.message_count).toBe(sourceEnd.message_count);
    await waitUntil(async () => {
      const listed = [];
      for await (const execution of arbor.env.client.workflow.list({ query: `ArborForkedFrom = '${source.id}'` }))
        listed.push(execution.workflowId);
      return listed.includes(fork.id);
    });
  });

  it('refuses a position past the end, one inside a turn, and an unknown session, saying why', async () => {
    const instruction = 'One turn with a tool round';
    model.forInstruction(instruction, toolCall('todoWrite', todo('Only')), text('Done.'));
    const source = await arbor.startSession({ profile: 'all', instruction });
    await arbor.waitUntilIdle(source);

    await expect(source.fork({ at: 5 })).rejects.toThrow(/Position 5 is past the end of session .*latest turn ended at position 4/);
    await expect(source.fork({ at: 2 })).rejects.toThrow(/Position 2 of session .* is inside a turn .*the nearest are 4/);
    await expect(source.fork({ at: 0 })).rejects.toThrow(/at least 1/);
    const unknown = await arbor.client
      .session('no-such-session')
      .fork()
      .catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(ArborClientError);
    expect((unknown as Error).message).toBe('There is no session no-such-session.');
  });

  it('forks a tree: a finished sub-agent is carried as finished, a running one starts again in the new tree, and the source tree is unchanged', async () => {
    const instruction = 'Start a quick and a slow helper';
    const quick = 'Be quick';
    const slow = 'Be slow';
    let releaseSlow!: () => void;
    const slowGate = new Promise<void>((resolve) => (releaseSlow = resolve));
    let sourceRootId = '';
    const quickClosed = async () => {
      await waitUntil(async () => {
        const snapshot = await arbor.client.session(sourceRootId).snapshot();
        return snapshot.children.some((child) => child.title === 'Quick' && child.status === 'completed');
      });
    };
    model.forInstruction(
      instruction,
      toolCalls(
        ['subAgent', { title: 'Quick', instruction: quick, mode: 'async' }],
        ['subAgent', { title: 'Slow', instruction: slow, mode: 'async' }],
      ),
      async () => (await quickClosed(), text('Both started.')),
      ...Array.from(
        { length: 4 },
        () => (request: { lastUserMessage: string }) =>
          text(request.lastUserMessage.includes('"Slow"') ? 'Slow reported.' : 'Quick reported.'),
      ),
    );
    model.forInstruction(quick, text('Quick done.'));
    model.forInstruction(slow, async () => (await slowGate, text('Slow done.')), text('Slow done again, in the fork.'));
    const source = await arbor.startSession({ profile: 'all', instruction });
    sourceRootId = source.id;
    await waitUntil(async () => (await source.snapshot()).message_count >= 7);
    releaseSlow();
    await waitUntil(async () => (await source.snapshot()).children.every((child) => child.status === 'completed'));
    await arbor.settle(source);
    const sourceEnd = await source.snapshot();
    const members = [source.id, ...sourceEnd.children.map((child) => child.sub_session_id)];
    const before = await Promise.all(members.map(histories));
    const sourceQuick = sourceEnd.children.find((child) => child.title === 'Quick')!;
    const sourceSlow = sourceEnd.children.find((child) => child.title === 'Slow')!;

    const fork = await source.fork({ at: 5 });
    await waitUntil(async () => (await fork.snapshot()).children.every((child) => child.status === 'completed'));
    await arbor.settle(fork);

    const forked = await fork.snapshot();
    expect(forked.forked_from).toEqual({ session_id: source.id, position: 5 });
    const forkQuick = forked.children.find((child) => child.title === 'Quick')!;
    const forkSlow = forked.children.find((child) => child.title === 'Slow')!;
    expect(forkQuick).toMatchObject({ sub_session_id: sourceQuick.sub_session_id, status: 'completed', final_message: 'Quick done.' });
    expect(forkSlow.sub_session_id).not.toBe(sourceSlow.sub_session_id);
    expect(forkSlow).toMatchObject({ status: 'completed', final_message: 'Slow done again, in the fork.' });
    const newSlow = await arbor.client.session(forkSlow.sub_session_id).snapshot();
    expect(newSlow).toMatchObject({
      parent_session_id: fork.id,
      root_session_id: fork.id,
      forked_from: { session_id: sourceSlow.sub_session_id, position: 0 },
    });
    const forkTranscript = await fork.transcript();
    const sourceTranscript = await source.transcript();
    // The conversation up to the fork point, with the restarted sub-agent's new id where the source named the old one.
    expect(forkTranscript.slice(0, 5)).toEqual(
      JSON.parse(JSON.stringify(sourceTranscript.slice(0, 5)).split(sourceSlow.sub_session_id).join(forkSlow.sub_session_id)),
    );
    // Then its own way: the quick helper's notice (queued at the fork point) and the new slow helper's.
    expect(forkTranscript.slice(5).map((entry) => entry.content)).toEqual(expect.arrayContaining(['Quick reported.', 'Slow reported.']));
    const after = await Promise.all(members.map(histories));
    expect(after).toEqual(before);
  });

  it('forks from the command line at a position, naming the session by the start of its id', async () => {
    const instruction = 'Two turns for the command line';
    model.forInstruction(instruction, text('First answer.'), text('Second answer.'));
    const source = await arbor.startSession({ profile: 'all', instruction });
    await arbor.waitUntilIdle(source);
    await source.send('Again');
    await waitForTurn(source.id, 2);
    const env = { TEMPORAL_ADDRESS: inject('temporalAddress'), ARBOR_TASK_QUEUE: arbor.taskQueue } as NodeJS.ProcessEnv;

    // One process: each CLI run replays with the fork bundle (prebuilt in dist/, bundled once per process from src/).
    const forked = await runCli(['fork', source.id.slice(0, 13), '--at', '2'], env, 120_000);

    expect(forked.code, forked.stderr).toBe(0);
    const line = /^(\S+) forked from (\S+) at position 2$/m.exec(forked.stdout);
    expect(line?.[2]).toBe(source.id);
    expect(await arbor.client.session(line![1]!).snapshot()).toMatchObject({
      forked_from: { session_id: source.id, position: 2 },
      message_count: 2,
      last_message: { content: 'First answer.' },
    });
  });

  async function waitForTurn(sessionId: string, turn: number): Promise<SessionSnapshot> {
    let snapshot: SessionSnapshot | undefined;
    await waitUntil(async () => {
      snapshot = await arbor.client.session(sessionId).snapshot();
      return snapshot.turn >= turn && snapshot.status === 'idle';
    });
    return snapshot!;
  }
});
