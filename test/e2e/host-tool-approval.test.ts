import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ArborClient } from '../../src/client.js';
import type { ConnectionSettings } from '../../src/client/connection.js';
import type { SessionHandle } from '../../src/client/session-handle.js';
import type { QuestionSet } from '../../src/shared/tools/ask-user.js';
import type { SessionEvent } from '../../src/shared/events.js';
import { defineHostTool } from '../../src/tools.js';
import { createArborWorker, type ArborWorker } from '../../src/worker.js';
import { devServerSettings } from '../support/connection.js';
import { FakeOpenAI } from '../support/fake-openai.js';
import { runCli } from '../support/processes.js';
import { call, ScriptedModel, toolResults } from '../support/scripted-model.js';
import { waitUntil } from '../support/wait.js';

/** Every call that reached a tool's handler, by tool: a denied call never gets here. */
const ran: Record<string, unknown[]> = {};

const tools = [
  defineHostTool({
    name: 'wire_money',
    description: 'Wires money to an account.',
    input: z.object({ to: z.string(), eur: z.number() }),
    needsApproval: true,
    run: (args) => {
      (ran['wire_money'] ??= []).push(args);
      return { wired: args.eur, to: args.to };
    },
  }),
  defineHostTool({
    name: 'refund',
    description: 'Refunds an order; refunds over 100 EUR need approval.',
    input: z.object({ order_id: z.string(), eur: z.number() }),
    needsApproval: ({ eur }) => eur > 100,
    run: (args) => {
      (ran['refund'] ??= []).push(args);
      return `refunded ${args.eur} EUR on ${args.order_id}`;
    },
  }),
];

const wireQuestion = (args: unknown) => `May wire_money run with ${JSON.stringify(args)}?`;

describe('approval before a host tool call (dev server, fake model, the CLI as a real process)', () => {
  const fake = new FakeOpenAI();
  const model = new ScriptedModel(fake);
  let settings: ConnectionSettings;
  let worker: ArborWorker;
  let running: Promise<void>;
  let timeoutWorker: ArborWorker;
  let timeoutRunning: Promise<void>;
  let timeoutSettings: ConnectionSettings;
  let client: ArborClient;
  let cliEnv: NodeJS.ProcessEnv;

  beforeAll(async () => {
    await fake.start();
    const modelSettings = { apiKey: 'sk-approval', baseURL: fake.baseURL, defaultModel: 'fake-model', requestTimeoutMs: 10_000 };
    settings = devServerSettings();
    worker = await createArborWorker({ connection: settings, model: modelSettings, tools });
    running = worker.run();
    // A second deployment whose questions (approvals too) wait 2 seconds at most (ARBOR_QUESTION_TIMEOUT).
    timeoutSettings = devServerSettings();
    process.env['ARBOR_QUESTION_TIMEOUT'] = '2';
    try {
      timeoutWorker = await createArborWorker({ connection: timeoutSettings, model: modelSettings, tools });
    } finally {
      delete process.env['ARBOR_QUESTION_TIMEOUT'];
    }
    timeoutRunning = timeoutWorker.run();
    client = await ArborClient.fromSettings(settings);
    cliEnv = { TEMPORAL_ADDRESS: settings.address, ARBOR_TASK_QUEUE: settings.taskQueue };
  });

  afterAll(async () => {
    await client?.close();
    worker?.shutdown();
    timeoutWorker?.shutdown();
    await running;
    await timeoutRunning;
    await fake.stop();
  });

  /** The events a session has emitted so far (read until a second passes without more). */
  async function eventsOf(session: SessionHandle): Promise<SessionEvent[]> {
    const events: SessionEvent[] = [];
    try {
      for await (const event of session.events({ signal: AbortSignal.timeout(1_500) })) events.push(event);
    } catch (error) {
      if (!(error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError'))) throw error;
    }
    return events;
  }

  async function pendingApproval(session: SessionHandle): Promise<QuestionSet> {
    let sets: QuestionSet[] = [];
    await waitUntil(async () => (sets = await session.pendingQuestions()).length === 1, 60_000);
    return sets[0]!;
  }

  it('asks a sub-agent two levels down for approval at the root, and arbor answer Approve runs the tool', async () => {
    const root = `root ${randomUUID()}`;
    const middle = `middle ${randomUUID()}`;
    const leaf = `leaf ${randomUUID()}`;
    const args = { to: `NL-${randomUUID()}`, eur: 40 };
    model.script(root, call('subAgent', { title: 'Middle', instruction: middle, mode: 'sync' }), { content: 'Root done.' });
    model.script(middle, call('subAgent', { title: 'Payer', instruction: leaf, mode: 'sync' }), { content: 'Middle done.' });
    model.script(leaf, call('wire_money', args), { content: 'Wired.' });

    const started = await runCli(['start', root, '--json'], cliEnv);
    expect(started.code, started.stderr).toBe(0);
    const rootId = JSON.parse(started.stdout).session_id as string;
    const rootSession = client.session(rootId);
    const set = await pendingApproval(rootSession);
    expect(set).toMatchObject({
      session_title: 'Payer',
      approval: { tool_name: 'wire_money', arguments: JSON.stringify(args) },
      questions: [
        {
          question: wireQuestion(args),
          header: 'Approval',
          multiSelect: false,
          options: [expect.objectContaining({ label: 'Approve' }), expect.objectContaining({ label: 'Deny' })],
        },
      ],
    });
    expect(set.session_id).not.toBe(rootId);
    expect(ran['wire_money'] ?? []).not.toContainEqual(args);

    // A label the question does not offer is refused by askUser's rules, with exit code 2, and changes nothing.
    const wrong = await runCli(['answer', rootId, '--answers', JSON.stringify({ [wireQuestion(args)]: 'Maybe' })], cliEnv);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(`"Maybe" is not an option of "${wireQuestion(args)}". The options are "Approve", "Deny"`);
    // Two labels, and Approve with words, are refused too: only Deny may come with a reason.
    const both = await runCli(['answer', rootId, '--answers', JSON.stringify({ Approval: ['Approve', { other: 'sure' }] })], cliEnv);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('takes a single answer, got 2 (only "Deny" may come with your own words)');

    const answered = await runCli(['answer', rootId, '--answers', JSON.stringify({ [wireQuestion(args)]: 'Approve' })], cliEnv);
    expect(answered.code, answered.stderr).toBe(0);
    const snapshot = await rootSession.waitUntilIdle({ timeoutMs: 60_000 });
    expect(snapshot.last_message?.content).toBe('Root done.');
    expect(ran['wire_money']).toContainEqual(args);
    const leafRequests = fake.requestsFor(leaf);
    expect(toolResults(leafRequests.at(-1)!)).toEqual([JSON.stringify({ wired: 40, to: args.to })]);

    // The asking session's events and transcript hold the approval and its answer.
    const leafSession = client.session(set.session_id);
    const events = await eventsOf(leafSession);
    const asked = events.find((event) => event.type === 'questions_asked');
    expect(asked).toMatchObject({
      question_set_id: set.question_set_id,
      questions: [expect.objectContaining({ question: wireQuestion(args) })],
      approval: { tool_name: 'wire_money', arguments: JSON.stringify(args) },
    });
    expect(events.find((event) => event.type === 'questions_answered')).toMatchObject({
      question_set_id: set.question_set_id,
      answers: [{ question: wireQuestion(args), selected: ['Approve'] }],
    });
    const notices = (await leafSession.transcript()).filter((entry) => entry.role === 'notice').map((entry) => entry.content);
    expect(notices).toEqual([
      `Approval asked: may wire_money run with ${JSON.stringify(args)}?`,
      'Approval answered for wire_money: Approve (the call runs).',
    ]);
  });

  it('gives the model the denial and the reason when the user denies with words, and the tool never runs', async () => {
    const instruction = `Pay ${randomUUID()}`;
    const args = { to: `DE-${randomUUID()}`, eur: 900 };
    model.script(instruction, call('wire_money', args), { content: 'Understood, not paid.' });
    const session = await client.startSession({ instruction });
    const set = await pendingApproval(session);
    await session.answer({ Approval: ['Deny', { other: 'that account is not ours' }] }, { questionSetId: set.question_set_id });
    await session.waitUntilIdle({ timeoutMs: 60_000 });
    expect(toolResults(fake.requestsFor(instruction).at(-1)!)).toEqual([
      'Error: The user denied the call to wire_money, so it did not run. They said: "that account is not ours"',
    ]);
    expect(ran['wire_money'] ?? []).not.toContainEqual(args);
    const transcript = await session.transcript();
    expect(transcript.at(-1)).toMatchObject({ role: 'assistant', content: 'Understood, not paid.' });
    expect(transcript.filter((entry) => entry.role === 'notice').at(-1)?.content).toBe(
      'Approval answered for wire_money: Deny, that account is not ours (the call does not run).',
    );
  });

  it("sends the user's own words back to the model when they answer Other, and the tool does not run", async () => {
    const instruction = `Pay other ${randomUUID()}`;
    const args = { to: `FR-${randomUUID()}`, eur: 12 };
    model.script(instruction, call('wire_money', args), { content: 'I will pay half.' });
    const session = await client.startSession({ instruction });
    await pendingApproval(session);
    await session.answer({ [wireQuestion(args)]: { other: 'only pay half of it' } });
    await session.waitUntilIdle({ timeoutMs: 60_000 });
    expect(toolResults(fake.requestsFor(instruction).at(-1)!)).toEqual([
      'Error: The user did not approve the call to wire_money, so it did not run. They said: "only pay half of it"',
    ]);
    expect(ran['wire_money'] ?? []).not.toContainEqual(args);
  });

  it('runs the call without asking under the allow policy, and denies it without asking under deny', async () => {
    const allowed = `Pay allowed ${randomUUID()}`;
    const allowedArgs = { to: `IT-${randomUUID()}`, eur: 5 };
    model.script(allowed, call('wire_money', allowedArgs), { content: 'Paid.' });
    const allowSession = await client.startSession({ instruction: allowed, approval: 'allow' });
    expect((await allowSession.waitUntilIdle({ timeoutMs: 60_000 })).last_message?.content).toBe('Paid.');
    expect(ran['wire_money']).toContainEqual(allowedArgs);

    const denied = `Pay denied ${randomUUID()}`;
    const deniedArgs = { to: `ES-${randomUUID()}`, eur: 5 };
    model.script(denied, call('wire_money', deniedArgs), { content: 'Not paid.' });
    const started = await runCli(['start', denied, '--approval', 'deny', '--json'], cliEnv);
    expect(started.code, started.stderr).toBe(0);
    const denySession = client.session(JSON.parse(started.stdout).session_id as string);
    await denySession.waitUntilIdle({ timeoutMs: 60_000 });
    expect(toolResults(fake.requestsFor(denied).at(-1)!)).toEqual([
      'Error: The call to wire_money needs the user\'s approval, and this session\'s approval policy is "deny" (it runs without asking anyone), so it was denied and did not run.',
    ]);
    expect(ran['wire_money'] ?? []).not.toContainEqual(deniedArgs);
    const events = await eventsOf(denySession);
    expect(events.some((event) => event.type === 'questions_asked')).toBe(false);

    const badPolicy = await runCli(['start', denied, '--approval', 'sometimes'], cliEnv);
    expect(badPolicy.code).toBe(2);
    expect(badPolicy.stderr).toContain('--approval "sometimes": the policy is one of ask, allow, deny.');
  });

  it('hands the deny policy to sub-agents, whose calls are then denied without asking', async () => {
    const root = `deny root ${randomUUID()}`;
    const child = `deny child ${randomUUID()}`;
    const args = { to: `PT-${randomUUID()}`, eur: 1 };
    model.script(root, call('subAgent', { title: 'Child', instruction: child, mode: 'sync' }), { content: 'Done.' });
    model.script(child, call('wire_money', args), { content: 'Child not paid.' });
    const session = await client.startSession({ instruction: root, approval: 'deny' });
    await session.waitUntilIdle({ timeoutMs: 60_000 });
    expect(toolResults(fake.requestsFor(child).at(-1)!)[0]).toMatch(/approval policy is "deny"/);
    expect(ran['wire_money'] ?? []).not.toContainEqual(args);
  });

  it("denies a call needing approval in an automation's run, which runs unattended under the deny policy by default", async () => {
    const prompt = `Automated payment ${randomUUID()}`;
    const args = { to: `BE-${randomUUID()}`, eur: 70 };
    model.script(prompt, call('wire_money', args), { content: 'Automation could not pay.' });
    const automations = client.automations(`approval-${randomUUID().slice(0, 8)}`);
    const automation = await automations.create({
      title: 'Pay',
      prompt,
      timezone: 'UTC',
      start_local: '2099-01-01T09:00',
      recurrence: 'none',
      tools: ['wire_money'],
    });
    try {
      const { run_id } = await automations.run(automation.automation_id);
      const run = await automations.waitRun(run_id, 60_000);
      expect(run).toMatchObject({ status: 'completed', final_message: 'Automation could not pay.' });
      expect(toolResults(fake.requestsFor(prompt).at(-1)!)[0]).toMatch(
        /^Error: The call to wire_money needs the user's approval, and this session's approval policy is "deny"/,
      );
      expect(ran['wire_money'] ?? []).not.toContainEqual(args);
    } finally {
      await automations.delete(automation.automation_id);
    }
  });

  it('runs the call in the runs of an automation created with arbor automations create --approval allow', async () => {
    const prompt = `Allowed automated payment ${randomUUID()}`;
    const args = { to: `LU-${randomUUID()}`, eur: 8 };
    model.script(prompt, call('wire_money', args), { content: 'Automation paid.' });
    const owner = `approval-${randomUUID().slice(0, 8)}`;
    const flags = ['--owner', owner, '--title', 'Pay', '--prompt', prompt, '--start', '2099-01-01T09:00', '--tools', 'wire_money'];
    const created = await runCli(['automations', 'create', ...flags, '--approval', 'allow', '--json'], cliEnv);
    expect(created.code, created.stderr).toBe(0);
    const automationId = JSON.parse(created.stdout).automation_id as string;
    const automations = client.automations(owner);
    try {
      const { run_id } = await automations.run(automationId);
      expect(await automations.waitRun(run_id, 60_000)).toMatchObject({ status: 'completed', final_message: 'Automation paid.' });
      expect(ran['wire_money']).toContainEqual(args);
    } finally {
      await automations.delete(automationId);
    }
  });

  it('asks only about the calls its needsApproval function picks, evaluated on the worker', async () => {
    const instruction = `Refunds ${randomUUID()}`;
    const small = { order_id: `S-${randomUUID()}`, eur: 20 };
    const large = { order_id: `L-${randomUUID()}`, eur: 500 };
    model.script(
      instruction,
      {
        toolCalls: [
          { name: 'refund', arguments: JSON.stringify(small) },
          { name: 'refund', arguments: JSON.stringify(large) },
        ],
      },
      { content: 'Refunds done.' },
    );
    const session = await client.startSession({ instruction });
    const set = await pendingApproval(session);
    expect(set.questions[0]!.question).toBe(`May refund run with ${JSON.stringify(large)}?`);
    await waitUntil(async () => (ran['refund'] ?? []).some((args) => JSON.stringify(args) === JSON.stringify(small)), 30_000);
    await session.answer({ Approval: 'Approve' });
    await session.waitUntilIdle({ timeoutMs: 60_000 });
    expect(toolResults(fake.requestsFor(instruction).at(-1)!)).toEqual([
      `refunded 20 EUR on ${small.order_id}`,
      `refunded 500 EUR on ${large.order_id}`,
    ]);
    // The function's answers are recorded in history, by the local activity hostToolNeedsApproval: one marker per
    // refund call, besides prepareSession's.
    const history = await client.temporal.workflow.getHandle(session.id).fetchHistory();
    const markers = (history.events ?? []).filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity');
    expect(markers).toHaveLength(3);
  });

  it("denies the call when nobody answers within the deployment's question timeout, and says so", async () => {
    const timeoutClient = await ArborClient.fromSettings(timeoutSettings);
    try {
      const instruction = `Pay later ${randomUUID()}`;
      const args = { to: `AT-${randomUUID()}`, eur: 3 };
      model.script(instruction, call('wire_money', args), { content: 'Nobody answered.' });
      const session = await timeoutClient.startSession({ instruction });
      await session.waitUntilIdle({ timeoutMs: 60_000 });
      expect(toolResults(fake.requestsFor(instruction).at(-1)!)).toEqual([
        'Error: The user did not answer whether wire_money may run within 2 s, so the call was denied and did not run.',
      ]);
      expect(ran['wire_money'] ?? []).not.toContainEqual(args);
      const events = await eventsOf(session);
      expect(events.some((event) => event.type === 'questions_expired')).toBe(true);
      expect(await session.pendingQuestions()).toEqual([]);
    } finally {
      await timeoutClient.close();
    }
  });
});
