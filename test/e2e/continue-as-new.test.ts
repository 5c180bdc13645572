import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ArborClient } from '../../src/client.js';
import { loadConnectionSettings } from '../../src/client/connection.js';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server.js';
import { createArborWorker, type ArborWorker } from '../../src/worker.js';
import { FakeOpenAI } from '../support/fake-openai.js';
import { call, ScriptedModel } from '../support/scripted-model.js';
import { waitUntil } from '../support/wait.js';
import { userMessageSignal } from '../../src/shared/messages.js';

describe('a session whose history grows past the continue-as-new suggestion', () => {
  const fake = new FakeOpenAI();
  let server: DevServer;
  let worker: ArborWorker;
  let running: Promise<void>;
  let client: ArborClient;
  const serverOutput: string[] = [];

  beforeAll(async () => {
    await fake.start();
    // A tiny threshold makes the server suggest continue-as-new after a couple of turns.
    server = await startDevServer({
      cliPath: inject('temporalCliPath'),
      port: 0,
      ui: false,
      extraArgs: ['--dynamic-config-value', 'limit.historyCount.suggestContinueAsNew=20'],
      onOutput: (line) => serverOutput.push(line),
    });
    const settings = loadConnectionSettings(
      { TEMPORAL_CONFIG_FILE: '/nonexistent/arbor-test.toml' },
      { address: server.address, taskQueue: 'can-test' },
    );
    worker = await createArborWorker({
      connection: settings,
      // Summaries off: these tests are about what a continue-as-new carries without them (test/e2e/compaction.test.ts: with).
      model: { apiKey: 'sk-can', baseURL: fake.baseURL, defaultModel: 'fake-model', requestTimeoutMs: 30_000, summaries: false },
    });
    running = worker.run();
    client = await ArborClient.fromSettings(settings);
  });

  afterAll(async () => {
    await client?.close();
    worker?.shutdown();
    await running;
    await server?.stop();
    await fake.stop();
  });

  it('continues as new while a sub-agent runs, and the sub-agent reports to the next run exactly once', async () => {
    const root = `can root ${Date.now()}`;
    const child = `can child ${Date.now()}`;
    const model = new ScriptedModel(fake);
    model.script(
      root,
      call('subAgent', { title: 'Long task', instruction: child }),
      { content: 'Started the long task.' },
      ...Array.from({ length: 4 }, (_, index) => ({ content: `small talk ${index}` })),
      { content: 'Got the notice.' },
    );
    model.script(child, { content: 'Long task done.', delayMs: 8_000 });
    const session = await client.startSession({ profile: 'all', instruction: root });
    await session.waitUntilIdle({ timeoutMs: 30_000 });
    const childId = (await session.snapshot()).children[0]!.sub_session_id;
    for (const text of ['one', 'two', 'three', 'four']) {
      const messageId = await session.send(text);
      await session.waitUntilIdle({ messageId, timeoutMs: 30_000 });
    }
    expect(await runStatuses(session.id)).toContain('CONTINUED_AS_NEW');
    expect((await client.temporal.workflow.getHandle(childId).describe()).status.name).toBe('RUNNING');

    await waitUntil(async () => (await session.snapshot()).last_message?.content === 'Got the notice.');
    const notices = (await session.transcript()).filter((entry) => entry.content.startsWith('[Sub-agent notice]'));
    expect(notices).toHaveLength(1);
    expect(notices[0]!.content).toContain('Long task done.');
    expect((await client.temporal.workflow.getHandle(childId).describe()).status.name).toBe('COMPLETED');
    expect((await session.snapshot()).children).toEqual([
      expect.objectContaining({ title: 'Long task', status: 'completed', outlives_run: true }),
    ]);
  });

  it('stops a sub-agent carried over from an earlier run when the session is cancelled', async () => {
    const root = `can stop root ${Date.now()}`;
    const child = `can stop child ${Date.now()}`;
    const model = new ScriptedModel(fake);
    model.script(
      root,
      call('subAgent', { title: 'Endless task', instruction: child }),
      { content: 'Started.' },
      ...Array.from({ length: 4 }, () => ({ content: 'ok' })),
    );
    model.script(child, call('wait', { seconds: 3_600, reason: 'an hour-long job' }), { content: 'never' });
    const session = await client.startSession({ profile: 'all', instruction: root });
    await session.waitUntilIdle({ timeoutMs: 30_000 });
    const childId = (await session.snapshot()).children[0]!.sub_session_id;
    for (const text of ['one', 'two', 'three', 'four'])
      await session.waitUntilIdle({ messageId: await session.send(text), timeoutMs: 30_000 });
    expect(await runStatuses(session.id)).toContain('CONTINUED_AS_NEW');

    await client.temporal.workflow.getHandle(session.id).cancel();
    await waitUntil(async () => (await client.temporal.workflow.getHandle(session.id).describe()).status.name === 'CANCELLED');
    // The root ends once the carried child has reported its end; the child's own close is its next workflow task, so
    // under load it can follow the root's by a moment.
    expect((await session.snapshot()).children[0]).toMatchObject({ status: 'stopped' });
    await waitUntil(async () => (await client.temporal.workflow.getHandle(childId).describe()).status.name === 'CANCELLED', 10_000);
  });

  it("keeps transcript positions when a continue-as-new leaves old entries behind, so the entries after a snapshot's message_count are still that turn's", async () => {
    const instruction = `compacting ${Date.now()}`;
    const big = (label: string) => `${label} `.padEnd(190_000, 'x');
    new ScriptedModel(fake).script(
      instruction,
      { content: 'Ready.' },
      ...Array.from({ length: 6 }, (_, index) => ({ content: `Noted ${index}.` })),
      // Two tool rounds make the last turn long enough that it ends with a continue-as-new.
      call('listLoops', {}),
      call('listLoops', {}),
      { content: 'Here is what comes next.' },
    );
    const session = await client.startSession({ profile: 'all', instruction });
    await session.waitUntilIdle({ timeoutMs: 30_000 });
    // Sent as the userMessage signal: the SDK's send (the sendMessage update) falls back to the signal as well when no
    // worker takes the update within 5 s, as under a loaded machine, and two copies of a 190 KB message in the history
    // would move the continue-as-new a turn earlier.
    const signal = async (content: string) => {
      const id = randomUUID();
      await client.temporal.workflow.getHandle(session.id).signal(userMessageSignal, { id, content });
      return id;
    };
    for (let index = 0; index < 6; index++)
      await session.waitUntilIdle({ messageId: await signal(big(`message ${index}`)), timeoutMs: 30_000 });

    const before = await session.snapshot();
    const runBefore = (await client.temporal.workflow.getHandle(session.id).describe()).runId;
    const messageId = await signal(big('What comes next?'));
    const streamed: string[] = [];
    await session.waitUntilIdle({
      messageId,
      fromEntry: before.message_count,
      onEntries: (entries) => streamed.push(...entries.map((entry) => entry.role)),
      timeoutMs: 30_000,
    });

    // The turn ended by continuing as new, and the next run holds fewer entries than the session has had.
    expect((await client.temporal.workflow.getHandle(session.id).describe()).runId).not.toBe(runBefore);
    const held = await session.transcript();
    expect(held[0]).toMatchObject({ role: 'notice' });
    const after = await session.snapshot();
    expect(held.length).toBeLessThan(after.message_count);
    expect(after.message_count).toBe(before.message_count + 6);

    const turn = await session.transcript({ offset: before.message_count });
    expect(turn.map((entry) => entry.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    expect(turn[0]!.id).toBe(messageId);
    expect(turn.at(-1)!.content).toBe('Here is what comes next.');
    expect(streamed).toEqual(turn.map((entry) => entry.role));
  });

  async function runStatuses(workflowId: string): Promise<string[]> {
    const statuses: string[] = [];
    for await (const run of client.temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` })) statuses.push(run.status.name);
    return statuses;
  }

  it('continues as new between turns and keeps its whole conversation, todos and identity', async () => {
    const instruction = 'Remember everything.';
    fake.fallback = (request) => {
      const last = request.body.messages.at(-1)!;
      if (last.role === 'user' && last.content?.startsWith('Plan')) {
        return { toolCalls: [{ name: 'todoWrite', arguments: '{"todos":[{"content":"Keep this","status":"pending"}]}' }] };
      }
      return { content: `answer ${request.body.messages.filter((message) => message.role === 'user').length}` };
    };
    const session = await client.startSession({ profile: 'all', instruction });
    // A live reader follows the session's events across its runs.
    const stopReading = new AbortController();
    const seen: number[] = [];
    const reading = (async () => {
      for await (const event of session.events({ signal: stopReading.signal })) seen.push(event.seq);
    })();
    await session.waitUntilIdle({ timeoutMs: 30_000 });
    for (const text of ['Plan one thing.', 'Second.', 'Third.', 'Fourth.', 'Fifth.']) {
      const messageId = await session.send(text);
      await session.waitUntilIdle({ messageId, timeoutMs: 30_000 });
    }
    const lastSeq = (await session.snapshot()).last_event_seq;
    await waitUntil(() => seen.at(-1) === lastSeq, 15_000);
    stopReading.abort();
    await reading;
    expect(seen).toEqual(Array.from({ length: lastSeq }, (_, index) => index + 1));
    // The reader's history long polls stay within what the server serves, so they leave no warnings in its log.
    expect(serverOutput.filter((line) => line.includes('GetHistory page size'))).toEqual([]);

    const runs = await runStatuses(session.id);
    expect(runs).toContain('CONTINUED_AS_NEW');
    expect(runs.filter((status) => status === 'RUNNING')).toHaveLength(1);

    const snapshot = await session.snapshot();
    expect(snapshot).toMatchObject({ session_id: session.id, title: instruction, status: 'idle', turn: 6, root_session_id: session.id });
    expect(snapshot.todos).toEqual([{ content: 'Keep this', status: 'pending' }]);
    expect(snapshot.last_message?.content).toBe('answer 6');

    const transcript = await session.transcript();
    expect(transcript.filter((entry) => entry.role === 'user').map((entry) => entry.content)).toEqual([
      instruction,
      'Plan one thing.',
      'Second.',
      'Third.',
      'Fourth.',
      'Fifth.',
    ]);
    // The model saw the whole conversation in the last call, across the runs.
    const lastRequest = fake.requestsFor(instruction).at(-1)!;
    expect(lastRequest.body.messages.filter((message) => message.role === 'user')).toHaveLength(6);
  });
});
