import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { answerQuestionsUpdate } from '../../src/shared/messages.js';
import {
  createTestArbor,
  delayed,
  ScriptedModel,
  text,
  toolCall,
  toolCalls,
  type ModelRequest,
  type ScriptItem,
  type TestArbor,
} from '../../src/testing.js';

/** The id an async Agent call returned, read from the request that carries its result. */
const agentIdIn = (request: ModelRequest, index = 0) => (request.toolResults[index] as { agent_id: string }).agent_id;
const idOf = (result: unknown) => (result as { agent_id: string }).agent_id;
/** A step made from the previous tool result's agent id. */
const withAgentId =
  (make: (id: string) => ScriptItem, index = 0): ScriptItem =>
  (request) => {
    const step = make(agentIdIn(request, index));
    return typeof step === 'function' ? step(request) : step;
  };

const secretKey = 'seed-tools-test-key';
// The answering client seals secret answers with the key it shares with the worker.
process.env.ARBOR_SECRET_KEY = secretKey;

/** Every payload of the session's whole history, decoded, as one text: what must never hold a secret. */
async function historyText(arbor: TestArbor, sessionId: string): Promise<string> {
  const history = await arbor.env.client.workflow.getHandle(sessionId).fetchHistory();
  const texts: string[] = [];
  const walk = (value: unknown): void => {
    if (value instanceof Uint8Array) texts.push(Buffer.from(value).toString('utf8'));
    else if (typeof value === 'string') texts.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === 'object' && value !== null) Object.values(value).forEach(walk);
  };
  walk(history);
  return texts.join('\n');
}

describe('the claurst and soai agent tools (the testing kit on the time-skipping server, scripted models)', () => {
  const model = new ScriptedModel();
  let arbor: TestArbor;
  let counter = 0;
  const unique = (label: string) => `${label} ${++counter}`;

  beforeAll(async () => {
    arbor = await createTestArbor({
      model,
      modelName: 'seed-model',
      modelAliases: { sonnet: 'seed-model-large' },
      secretKey,
      workflowBundlePath: inject('workflowBundlePath'),
    });
  });

  afterAll(async () => {
    await arbor?.teardown();
  });

  it('Agent runs a sync sub-agent on the model its alias maps to and returns completed with the final message', async () => {
    const root = unique('claurst sync root');
    const child = unique('claurst sync child');
    model.forInstruction(
      root,
      toolCall('Agent', { description: 'Write unit tests', prompt: child, tools: ['todoWrite'], model: 'sonnet' }),
      toolCall('Task', { description: 'Unknown alias', prompt: 'never started', model: 'opus' }),
      toolCall('Agent', { description: 'Team agent', prompt: 'never started', team_name: 'blue' }),
      toolCall('Agent', { description: 'Lead twin', prompt: 'never started', name: 'team-lead' }),
      text('Root done.'),
    );
    model.forInstruction(child, text('Tests written.'));
    const session = await arbor.startSession({ instruction: root, profile: 'all' });
    await arbor.waitUntilIdle(session);

    const [, afterAgent, afterUnknown, afterTeam, afterLeadName] = model.requestsFor(root);
    expect(afterAgent!.toolResults[0]).toEqual({ status: 'completed', agent_id: expect.any(String), content: 'Tests written.' });
    const childRequest = model.requestsFor(child)[0]!;
    expect(childRequest.model).toBe('seed-model-large');
    expect(childRequest.tools).toEqual(['todoWrite']);
    expect(afterUnknown!.toolResults[0]).toMatch(
      /^Error: Model alias "opus" is not configured on this worker.*sonnet \(seed-model-large\)/,
    );
    expect(afterTeam!.toolResults[0]).toMatch(/^Error: team_name is not supported/);
    expect(afterLeadName!.toolResults[0]).toMatch(/^Error: "team-lead" is the root session's name in SendMessage/);
    expect((await arbor.snapshot(session)).children).toHaveLength(1);
  });

  it('a background Agent returns async_launched, and TaskOutput reads not_ready, timeout, then success with the task fields', async () => {
    const root = unique('claurst async root');
    const child = unique('claurst async child');
    model.forInstruction(
      root,
      toolCall('Agent', { description: 'Background job', prompt: child, run_in_background: true }),
      withAgentId((id) => toolCall('TaskOutput', { task_id: id, block: false })),
      () => toolCall('TaskOutput', { task_id: idOf(model.requestsFor(root)[1]!.toolResults[0]), timeout: 50 }),
      () => toolCall('TaskOutput', { task_id: idOf(model.requestsFor(root)[1]!.toolResults[0]), timeout: 600_000 }),
      toolCall('TaskOutput', { task_id: 'no-such-task', timeout: 600_001 }),
      toolCall('TaskOutput', { task_id: 'no-such-task' }),
      text('Read it.'),
      text('Notice seen.'),
    );
    model.forInstruction(child, delayed(2_000, text('Background result.')));
    const session = await arbor.startSession({ instruction: root, profile: 'all' });
    await arbor.waitUntilIdle(session);

    const requests = model.requestsFor(root);
    const launched = requests[1]!.toolResults[0];
    expect(launched).toMatchObject({ status: 'async_launched', agent_id: expect.any(String), description: 'Background job' });
    const id = idOf(launched);
    expect(requests[2]!.toolResults[0]).toEqual({ retrieval_status: 'not_ready', task: null });
    expect(requests[3]!.toolResults[0]).toEqual({ retrieval_status: 'timeout', task: null });
    expect(requests[4]!.toolResults[0]).toEqual({
      retrieval_status: 'success',
      task: {
        task_id: id,
        task_type: 'agent',
        status: 'completed',
        description: 'Background job',
        output: 'Background result.',
        exit_code: null,
        final_message: 'Background result.',
        error: null,
      },
    });
    expect(requests[5]!.toolResults[0]).toMatch(/^Error: Invalid arguments for TaskOutput:[\s\S]*timeout/);
    expect(requests[6]!.toolResults[0]).toMatch(/^Error: No sub-agent with id no-such-task was started by this session/);
  });

  it('TaskStop stops a running agent task and its subtree; TaskOutput then reads it as killed, and a second stop (KillShell) is refused', async () => {
    const root = unique('claurst stop root');
    const child = unique('claurst stop child');
    const grandchild = unique('claurst stop grandchild');
    const question = {
      question: 'Which way?',
      header: 'Way',
      options: [
        { label: 'Left', description: 'l' },
        { label: 'Right', description: 'r' },
      ],
    };
    model.forInstruction(
      root,
      toolCall('Agent', { description: 'Long job', prompt: child, run_in_background: true, tools: ['Agent', 'askUser'] }),
      // The grandchild is waiting for the user when the stop comes: nothing but the stop ends it.
      async () => {
        await arbor.waitForUser(session);
        return toolCall('TaskStop', { task_id: idOf(model.requestsFor(root)[1]!.toolResults[0]) });
      },
      () => toolCall('TaskOutput', { task_id: idOf(model.requestsFor(root)[1]!.toolResults[0]), timeout: 600_000 }),
      () => toolCall('KillShell', { shell_id: idOf(model.requestsFor(root)[1]!.toolResults[0]) }),
      text('Stopped.'),
    );
    model.forInstruction(child, toolCall('Agent', { description: 'Asks', prompt: grandchild, run_in_background: true }), text('waiting'));
    model.forInstruction(grandchild, toolCall('askUser', { questions: [question] }), text('never'));
    const session = await arbor.startSession({ instruction: root, profile: 'all' });
    await arbor.waitUntilIdle(session);

    const requests = model.requestsFor(root);
    const id = idOf(requests[1]!.toolResults[0]);
    expect(requests[2]!.toolResults[0]).toEqual({
      message: expect.stringMatching(/^Stopped agent task "Long job" \(2 session\(s\) stopped/),
      task_id: id,
      task_type: 'agent',
    });
    expect(requests[3]!.toolResults[0]).toMatchObject({ retrieval_status: 'success', task: { task_id: id, status: 'killed' } });
    expect(requests[4]!.toolResults[0]).toMatch(/^Error: Task .* is not running: it has already ended \(killed\)/);
    expect((await arbor.env.client.workflow.getHandle(id).describe()).status.name).toBe('CANCELLED');
    // An Agent that names no tools gets its parent's, less Agent and Task.
    expect(model.requestsFor(grandchild)[0]!.tools).toEqual(['askUser']);
  });

  it('subagent_observe gives a current snapshot at once, waits for the end in terminal mode with null, and 0 does not wait', async () => {
    const root = unique('soai observe root');
    const child = unique('soai observe child');
    model.forInstruction(
      root,
      toolCall('Agent', { description: 'Observed', prompt: child, run_in_background: true, name: 'observed' }),
      withAgentId((id) =>
        toolCalls(['subagent_observe', { subagent_id: id }], ['subagent_observe', { subagent_id: id, mode: 'terminal' }]),
      ),
      () =>
        toolCall('subagent_observe', { subagent_id: idOf(model.requestsFor(root)[1]!.toolResults[0]), mode: 'terminal', timeout_ms: null }),
      text('Observed.'),
      text('Notice seen.'),
    );
    model.forInstruction(child, delayed(1_500, text('Observed result.')));
    const session = await arbor.startSession({ instruction: root, profile: 'all' });
    await arbor.waitUntilIdle(session);

    const requests = model.requestsFor(root);
    const id = idOf(requests[1]!.toolResults[0]);
    const running = { subagent_id: id, display_name: 'observed', status: 'running', terminal: false, final_message: null };
    expect(requests[2]!.toolResults).toEqual([
      expect.objectContaining({ ...running, timed_out: false }),
      expect.objectContaining({ ...running, timed_out: true }),
    ]);
    expect(requests[3]!.toolResults[0]).toMatchObject({
      subagent_id: id,
      status: 'completed',
      terminal: true,
      timed_out: false,
      final_message: 'Observed result.',
    });
  });

  it('SendMessage reaches a named agent and broadcasts; a shutdown_response ok ends the responder, and the lead is told', async () => {
    const root = unique('claurst messages root');
    const alice = unique('claurst alice');
    const bob = unique('claurst bob');
    model.forInstruction(
      root,
      toolCalls(
        ['Agent', { description: 'Alice', prompt: alice, run_in_background: true, name: 'alice' }],
        ['Agent', { description: 'Bob', prompt: bob, run_in_background: true, name: 'bob' }],
      ),
      toolCalls(
        ['SendMessage', { to: 'alice', message: 'Status please', summary: 'status' }],
        ['SendMessage', { to: '*', message: { type: 'shutdown_request', reason: 'Work is done' } }],
        ['SendMessage', { to: 'uds:/tmp/agent.sock', message: 'x' }],
        ['SendMessage', { to: 'bridge:remote', message: 'x' }],
        ['SendMessage', { to: 'carol', message: 'x' }],
      ),
      text('Sent.'),
      ...Array.from({ length: 4 }, () => text('Noted.')),
    );
    model.forInstruction(
      alice,
      delayed(1_500, text('Alice started.')),
      toolCall('SendMessage', { to: 'team-lead', message: { type: 'shutdown_response', status: 'ok', message: 'bye' } }),
      text('never: the turn ended with the shutdown response'),
    );
    model.forInstruction(bob, delayed(1_500, text('Bob started.')), text('Bob keeps going.'));
    const session = await arbor.startSession({ instruction: root, profile: 'all' });
    await arbor.waitUntilIdle(session);
    await arbor.settle(session);

    const sent = model.requestsFor(root)[2]!.toolResults;
    expect(sent[0]).toEqual({ success: true, message: 'Message delivered to "alice".', recipients: ['alice'] });
    expect(sent[1]).toMatchObject({ success: true, recipients: expect.arrayContaining(['alice', 'bob']) });
    expect((sent[1] as { recipients: string[] }).recipients).toHaveLength(2);
    expect(sent[2]).toMatch(/^Error: "uds:" addresses .* are not supported/);
    expect(sent[3]).toMatch(/^Error: "bridge:" addresses .* are not supported/);
    expect(sent[4]).toMatch(/^Error: No agent named "carol" in this session tree\. Running agents: .*alice/);

    const aliceTurn2 = model.requestsFor(alice)[1]!;
    const aliceInbox = aliceTurn2.messages.filter((message) => message.role === 'user').map((message) => message.content ?? '');
    expect(aliceInbox.join('\n')).toContain('[Message from agent "team-lead" (status)]\nStatus please');
    expect(aliceInbox.join('\n')).toContain(
      '[shutdown_request from agent "team-lead"] {"type":"shutdown_request","reason":"Work is done"}',
    );
    expect(model.requestsFor(alice)).toHaveLength(2);
    expect(model.requestsFor(alice)[1]).toBeDefined();
    const leadHeard = model
      .requestsFor(root)
      .some((request) =>
        request.messages.some(
          (message) => message.role === 'user' && message.content?.startsWith('[shutdown_response from agent "alice"]'),
        ),
      );
    expect(leadHeard).toBe(true);
    const snapshot = await arbor.snapshot(session);
    expect(snapshot.children.map((child) => [child.name, child.status])).toEqual([
      ['alice', 'completed'],
      ['bob', 'completed'],
    ]);
  });

  it('AskUserQuestion returns the questions and a map of each question to the chosen value(s)', async () => {
    const instruction = unique('claurst ask');
    const db = {
      question: 'Which database?',
      options: [
        { label: 'Postgres', value: 'pg' },
        { label: 'SQLite', value: 'sqlite', description: 'A file' },
      ],
    };
    const features = {
      question: 'Which features?',
      header: 'Features',
      multiSelect: true,
      options: [
        { label: 'Auth', value: 'auth' },
        { label: 'Search', value: 'search' },
        { label: 'Export', value: 'export' },
      ],
    };
    model.forInstruction(
      instruction,
      toolCall('AskUserQuestion', { questions: [db, { ...db, question: 'Again?', options: [db.options[0]] }] }),
      toolCall('AskUserQuestion', { questions: [db, features] }),
      text('Noted.'),
    );
    const session = await arbor.startSession({ instruction, profile: 'all' });
    const [set] = await arbor.waitForUser(session);
    expect(set!.questions.map((question) => question.header)).toEqual(['Q1', 'Features']);
    await session.answer({ [db.question]: 'SQLite', [features.question]: ['Auth', { other: 'Webhooks' }] });
    await arbor.waitUntilIdle(session);

    const [, refused, answered] = model.requestsFor(instruction);
    expect(refused!.toolResults[0]).toMatch(/^Error: Invalid arguments for AskUserQuestion:[\s\S]*at least 2 options/);
    expect(answered!.toolResults[0]).toEqual({
      questions: [
        { ...db, multiSelect: false },
        { ...features, multiSelect: true },
      ],
      answers: { [db.question]: 'sqlite', [features.question]: ['auth', 'Webhooks'] },
    });
  });

  it('ask_user takes 1-6 questions with free text, and tells the model when the hour passes unanswered', async () => {
    const instruction = unique('soai ask');
    const name = { question: 'What is the project called?' };
    const tone = { question: 'Which tone?', options: [{ label: 'Formal' }, { label: 'Casual' }] };
    const seven = Array.from({ length: 7 }, (_, index) => ({ question: `Question ${index + 1}?` }));
    model.forInstruction(
      instruction,
      toolCall('ask_user', { questions: seven }),
      toolCall('ask_user', { questions: [name, tone] }),
      toolCall('ask_user', { questions: [tone] }),
      text('Went on without an answer.'),
    );
    const session = await arbor.startSession({ instruction, profile: 'all' });
    await arbor.waitForUser(session);
    await session.answer({ [name.question]: 'Arbor', [tone.question]: 'Casual' });
    await arbor.waitForUser(session);
    await arbor.fastForward(session, '61 minutes');
    await arbor.waitUntilIdle(session);

    const [, tooMany, answered, expired] = model.requestsFor(instruction);
    expect(tooMany!.toolResults[0]).toMatch(/^Error: Invalid arguments for ask_user:[\s\S]*at most 6 questions/);
    expect(answered!.toolResults[0]).toEqual({
      status: 'answered',
      answers: [
        { question: name.question, answer: 'Arbor' },
        { question: tone.question, answer: 'Casual' },
      ],
    });
    expect(expired!.toolResults[0]).toMatchObject({ status: 'timeout', answers: null });
    expect((expired!.toolResults[0] as { message: string }).message).toMatch(/within 3600 s/);
  });

  it('ask_user keeps a secret answer sealed: in clear only in the model call of its turn, never in history, events or transcript', async () => {
    const instruction = unique('soai secret');
    const secretValue = `sk-secret-${Date.now()}-value`;
    const apiKey = { question: 'Your API key?', secret: true };
    const tone = { question: 'Which tone?', options: [{ label: 'Formal' }, { label: 'Casual' }] };
    model.forInstruction(
      instruction,
      toolCall('ask_user', { questions: [{ question: 'Pick one?', options: [{ label: 'A' }, { label: 'B' }], secret: true }] }),
      toolCall('ask_user', { questions: [apiKey, tone] }),
      text('Stored the key.'),
      text('Next turn.'),
    );
    const session = await arbor.startSession({ instruction, profile: 'all' });
    const [set] = await arbor.waitForUser(session);
    expect(set!.secret_questions).toEqual([apiKey.question]);
    // An answer in clear is refused by the workflow's validator: it never enters the history.
    await expect(
      arbor.env.client.workflow.getHandle(session.id).executeUpdate(answerQuestionsUpdate, {
        args: [
          {
            question_set_id: set!.question_set_id,
            answers: { [apiKey.question]: { other: `${secretValue}-clear` }, [tone.question]: 'Formal' },
          },
        ],
      }),
    ).rejects.toThrow();
    delete process.env.ARBOR_SECRET_KEY;
    await expect(session.answer({ [apiKey.question]: secretValue, [tone.question]: 'Formal' })).rejects.toThrow(/set ARBOR_SECRET_KEY/);
    process.env.ARBOR_SECRET_KEY = secretKey;
    await session.answer({ [apiKey.question]: secretValue, [tone.question]: 'Formal' });
    await arbor.waitUntilIdle(session);
    await session.send('And now?');
    await arbor.waitUntilIdle(session);

    const [, optionsRefused, sameTurn, nextTurn] = model.requestsFor(instruction);
    expect(optionsRefused!.toolResults[0]).toMatch(
      /^Error: Invalid arguments for ask_user:[\s\S]*secret applies to free-text questions only/,
    );
    expect(sameTurn!.toolResults[0]).toEqual({
      status: 'answered',
      answers: [
        { question: apiKey.question, answer: secretValue },
        { question: tone.question, answer: 'Formal' },
      ],
    });
    const later = nextTurn!.messages.map((message) => message.content ?? '').join('\n');
    expect(later).not.toContain(secretValue);
    expect(later).toContain('[secret answer: shown to the model only in the turn that asked]');

    const history = await historyText(arbor, session.id);
    expect(history).toContain('arbor-sealed:v1:');
    expect(history).toContain('Formal');
    expect(history).not.toContain(secretValue);
    const stored = JSON.stringify([await arbor.events(session), await arbor.transcript(session), await arbor.snapshot(session)]);
    expect(stored).toContain('arbor-sealed:v1:');
    expect(stored).not.toContain(secretValue);
  });
});
