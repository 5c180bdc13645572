import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ArborClient } from '../../src/client.js';
import { rootSessionIdKey, titleKey } from '../../src/shared/search-attributes.js';
import { textFromAttribute } from '../../src/shared/text-attribute.js';
import { devServerSettings } from '../support/connection.js';
import { FakeOpenAI, type RecordedRequest } from '../support/fake-openai.js';
import { killHard, runCli, startWorkerProcess, workerProcessEnv } from '../support/processes.js';
import { call, ScriptedModel, toolResults } from '../support/scripted-model.js';
import { waitUntil } from '../support/wait.js';
import { runClusterScript } from './cluster-script.js';

interface TreeJson {
  session_id: string;
  title: string;
  status: string;
  children: TreeJson[];
}
const flatten = (node: TreeJson): TreeJson[] => [node, ...node.children.flatMap(flatten)];
const log = (line: string) => console.log(`[cluster] ${line}`);

/** Tries `operation` until it succeeds (a cluster just restarted may refuse a first request), for up to `timeoutMs`. */
async function untilAccepted<T>(operation: () => Promise<T>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await operation();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

/**
 * Arbor on a multi-service Temporal cluster (PostgreSQL persistence and visibility), with three worker processes.
 * Each worker calls the model with a key of its own, so a request tells which worker made it.
 */
describe('Arbor on a multi-service Temporal cluster on PostgreSQL, with three workers', () => {
  const fake = new FakeOpenAI();
  const model = new ScriptedModel(fake);
  const settings = devServerSettings();
  const cliEnv = { TEMPORAL_ADDRESS: settings.address, ARBOR_TASK_QUEUE: settings.taskQueue };
  const workers = new Map<string, ChildProcess>();
  let client: ArborClient;
  let started = 0;

  async function startWorker(): Promise<void> {
    const key = `sk-cluster-worker-${++started}`;
    workers.set(key, await startWorkerProcess(workerProcessEnv(settings, fake.baseURL, key)));
  }
  const workerOf = (request: RecordedRequest) => String(request.headers.authorization).replace(/^Bearer /, '');

  beforeAll(async () => {
    await fake.start();
    for (let index = 0; index < 3; index++) await startWorker();
    client = await ArborClient.fromSettings(settings);
  });

  afterAll(async () => {
    await Promise.all([...workers.values()].map(killHard));
    await client?.close();
    await fake.stop();
  });

  it('serves a fan-out of trees on all three workers, every session with its right answer', async () => {
    const tag = randomUUID();
    const trees = 12;
    for (let tree = 0; tree < trees; tree++) {
      model.script(
        `fan ${tree} ${tag}`,
        call('subAgent', { title: `Left ${tree}`, instruction: `left ${tree} ${tag}`, mode: 'sync' }),
        call('subAgent', { title: `Right ${tree}`, instruction: `right ${tree} ${tag}`, mode: 'sync' }),
        (request) => ({ content: `tree ${tree}: ${toolResults(request).join(' + ')}` }),
      );
      model.script(`left ${tree} ${tag}`, { content: `left answer ${tree}` });
      model.script(`right ${tree} ${tag}`, { content: `right answer ${tree}` });
    }
    const began = Date.now();
    const sessions = await Promise.all(
      Array.from({ length: trees }, (_, tree) => client.startSession({ profile: 'all', instruction: `fan ${tree} ${tag}` })),
    );
    const finals = await Promise.all(sessions.map((session) => session.waitUntilIdle({ timeoutMs: 240_000 })));
    log(`fan-out: ${trees} trees of 3 sessions idle in ${((Date.now() - began) / 1000).toFixed(1)} s`);
    finals.forEach((snapshot, tree) => {
      expect(snapshot.last_error).toBeNull();
      expect(snapshot.last_message?.content).toContain(`tree ${tree}: `);
      expect(snapshot.last_message?.content).toContain(`left answer ${tree}`);
      expect(snapshot.last_message?.content).toContain(`right answer ${tree}`);
    });
    const served = new Set(fake.requests.filter((request) => JSON.stringify(request.body).includes(tag)).map(workerOf));
    log(`fan-out: model calls made by ${[...served].join(', ')}`);
    expect(served.size).toBe(3);
  });

  it('finishes a turn on another worker when the worker making its model call is killed with SIGKILL', async () => {
    const instruction = `killed mid-turn ${randomUUID()}`;
    model.script(instruction, { content: 'never delivered', delayMs: 300_000 }, { content: 'Answer after the kill.' });
    const session = await client.startSession({ instruction });
    await waitUntil(() => fake.requestsFor(instruction).length === 1, 60_000);
    const victim = workerOf(fake.requestsFor(instruction)[0]!);
    const killedAt = Date.now();
    await killHard(workers.get(victim)!);
    workers.delete(victim);
    await waitUntil(() => fake.requestsFor(instruction).length === 2, 120_000);
    const takeover = fake.requestsFor(instruction)[1]!;
    log(`kill -9: the model call restarted on ${workerOf(takeover)} ${((takeover.at - killedAt) / 1000).toFixed(1)} s after the kill`);
    expect(workerOf(takeover)).not.toBe(victim);
    const snapshot = await session.waitUntilIdle({ timeoutMs: 60_000 });
    expect(snapshot.last_error).toBeNull();
    expect(snapshot.last_message?.content).toBe('Answer after the kill.');
    await startWorker();
  });

  it('carries sessions through a restart of all four services, then of history alone and frontend alone', async () => {
    const clusterEnv = inject('clusterEnv');
    const sleeping = `sleeps through restarts ${randomUUID()}`;
    model.script(sleeping, call('wait', { seconds: 20, reason: 'the restart' }), { content: 'Woke after the restart.' });
    const session = await client.startSession({ profile: 'all', instruction: sleeping });
    await waitUntil(async () => (await session.snapshot()).waiting !== null, 60_000);
    for (const services of [[], ['history'], ['frontend']]) {
      const began = Date.now();
      await runClusterScript(['restart', ...services], clusterEnv, log);
      log(`restart of ${services.length ? services.join(' ') : 'all services'}: ${((Date.now() - began) / 1000).toFixed(1)} s`);
      const after = `after restart of ${services.join(' ') || 'all'} ${randomUUID()}`;
      // One answer per session a retried start may have started.
      const answer = { content: `answered after ${services.join(' ') || 'all'}` };
      model.script(after, answer, answer, answer, answer);
      const next = await untilAccepted(() => client.startSession({ instruction: after }));
      const snapshot = await next.waitUntilIdle({ timeoutMs: 180_000 });
      expect(snapshot.last_message?.content).toBe(`answered after ${services.join(' ') || 'all'}`);
    }
    const woke = await session.waitUntilIdle({ timeoutMs: 180_000 });
    expect(woke.last_error).toBeNull();
    expect(woke.last_message?.content).toBe('Woke after the restart.');
  });

  it('stops a tree whose titles hold colons, quotes, backslashes and other scripts, and every view agrees with each session', async () => {
    const tag = randomUUID();
    const rootTitle = `Research: A vs B ${tag.slice(0, 8)}`;
    const titles = ['Quote "it\'s" here', 'Back\\slash C:\\path\\', '日本語: 調査と分析', 'Ελληνικά & ünïcödé — ok?'];
    model.script(
      `titled root ${tag}`,
      ...titles.map((title, index) => call('subAgent', { title, instruction: `titled ${index} ${tag}`, mode: 'async' })),
      { content: 'All started.' },
    );
    titles.forEach((_, index) =>
      model.script(
        `titled ${index} ${tag}`,
        ...(index === 2 ? [call('subAgent', { title: 'Deeper: "x" \\ y', instruction: `deeper ${tag}`, mode: 'async' })] : []),
        call('wait', { seconds: 3600, reason: 'waiting: for the stop' }),
      ),
    );
    model.script(`deeper ${tag}`, call('wait', { seconds: 3600, reason: 'deeper' }));
    const session = await client.startSession({ profile: 'all', instruction: `titled root ${tag}`, title: rootTitle });
    const expected = [rootTitle, ...titles, 'Deeper: "x" \\ y'].sort();

    // Visibility lists all six in the tree, each with the title the session itself records.
    let listed: { id: string; title: string }[] = [];
    await waitUntil(async () => {
      listed = [];
      for await (const execution of client.temporal.workflow.list({ query: `${rootSessionIdKey.name} = '${session.id}'` }))
        listed.push({ id: execution.workflowId, title: textFromAttribute(execution.typedSearchAttributes.get(titleKey) ?? '') });
      return listed.length === 6;
    }, 120_000);
    for (const entry of listed) expect(entry.title).toBe((await client.session(entry.id).snapshot()).title);
    expect(listed.map((entry) => entry.title).sort()).toEqual(expected);

    const tree: TreeJson = JSON.parse((await runCli(['tree', session.id, '--json'], cliEnv)).stdout);
    expect(
      flatten(tree)
        .map((node) => node.title)
        .sort(),
    ).toEqual(expected);
    const list = JSON.parse((await runCli(['list', '--json', '--limit', '100'], cliEnv)).stdout) as {
      sessions: { session_id: string; title: string }[];
    };
    expect(list.sessions.find((entry) => entry.session_id === session.id)?.title).toBe(rootTitle);
    const titled = await client.listSessions({ title: 'research: a vs b' });
    expect(titled.map((entry) => entry.session_id)).toContain(session.id);

    const stopped = JSON.parse((await runCli(['stop', session.id, '--json'], cliEnv)).stdout);
    expect(stopped.total_stopped).toBe(6);
    expect(stopped.stopped_sessions.map((entry: { title: string }) => entry.title).sort()).toEqual(expected);
    for (const entry of listed) expect((await client.temporal.workflow.getHandle(entry.id).describe()).status.name).toBe('CANCELLED');
    // And visibility records the close of each.
    await waitUntil(async () => {
      let closed = 0;
      for await (const execution of client.temporal.workflow.list({
        query: `${rootSessionIdKey.name} = '${session.id}' AND ExecutionStatus = 'Canceled'`,
      }))
        closed += execution.workflowId ? 1 : 0;
      return closed === 6;
    }, 120_000);
  });

  it('runs an automation through its Temporal Schedule to the right answer', async () => {
    const prompt = `Daily: write the report ${randomUUID()}`;
    model.script(prompt, { content: 'Report: all quiet.' });
    const automations = client.automations(`cluster-${randomUUID().slice(0, 8)}`);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const automation = await automations.create({
      title: 'Daily: report',
      prompt,
      timezone: 'UTC',
      start_local: `${tomorrow}T09:00`,
      recurrence: 'daily',
    });
    const run = await automations.run(automation.automation_id);
    const finished = await automations.waitRun(run.run_id, 120_000);
    expect(finished).toMatchObject({ status: 'completed', final_message: 'Report: all quiet.', timed_out: false });
    await automations.delete(automation.automation_id);
  });
});
