/**
 * Fault injection, bad input (issue 9, item 5): a model that sends 1,000 malformed tool calls, and SDK callers that
 * pass bad arguments. Malformed calls are answered to the model as tool errors without a single workflow task
 * failure; bad SDK arguments are refused with an ArborClientError that says what to fix.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ArborClientError } from '../../src/client.js';
import { maxToolCallNameLength } from '../../src/activities/model-reply.js';
import type { RecordedRequest } from '../support/fake-openai.js';
import { waitUntil } from '../support/wait.js';
import { faultWorker } from './fault-worker.js';
import { completionBody, malformedCalls, type MalformedCall } from './malformed-calls.js';

const callCount = 1_000;
const callsPerRound = 250;

describe('bad input at scale (dev server, fake model)', () => {
  const harness = faultWorker('sk-bad-input');
  const { fake, model } = harness;

  it('answers 1,000 generated malformed tool calls, 250 to a round, each as a tool error, with no workflow task failure', async () => {
    const calls = malformedCalls(callCount);
    const rounds = Array.from({ length: callCount / callsPerRound }, (_, round) =>
      calls.slice(round * callsPerRound, (round + 1) * callsPerRound),
    );
    const kinds = new Set(calls.map((call) => call.kind));
    for (const kind of kinds) expect(calls.filter((call) => call.kind === kind).length, kind).toBeGreaterThanOrEqual(100);

    const instruction = `malformed calls ${randomUUID()}`;
    model.script(
      instruction,
      ...rounds.map((round, index) => ({ raw: completionBody(round, index) })),
      { content: 'I will call the tools properly now.' },
      { content: 'Still here.' },
    );
    const session = await harness.client.startSession({ instruction, profile: 'all' });
    const snapshot = await session.waitUntilIdle({ timeoutMs: 120_000 });
    expect(snapshot).toMatchObject({ status: 'idle', turn: 1, last_error: null });
    expect(snapshot.last_message).toMatchObject({ role: 'assistant', content: 'I will call the tools properly now.' });
    const requests = fake.requestsFor(instruction);
    expect(requests).toHaveLength(rounds.length + 1);

    // What the model was told after each round: one tool error per call, in call order, matching what was wrong.
    for (const [index, round] of rounds.entries()) {
      const answered = answersOfRound(requests[index + 1]!, index);
      expect(answered).toHaveLength(round.length);
      round.forEach((call, position) => {
        const { id, name, content } = answered[position]!;
        expect(content, `${call.kind}: ${describeCall(call)}`).toMatch(call.expected);
        expect(id).toMatch(/^(r\d+_\d+|call_t1_r\d+_\d+)$/);
        expect(name.length).toBeLessThanOrEqual(maxToolCallNameLength + 1);
      });
    }
    // An enormous tool name comes back cut, so its error stays small.
    const hugeNames = answersOfRound(requests[1]!, 0).filter((answer) => answer.name.endsWith('…'));
    expect(hugeNames.length).toBeGreaterThan(0);
    for (const answer of hugeNames) expect(answer.content.length).toBeLessThan(2_000);

    // The transcript agrees, and no malformed call did anything.
    const tools = [];
    for (let offset = 0; offset < snapshot.message_count; offset += 200)
      tools.push(...(await session.transcript({ offset, limit: 200 })).filter((entry) => entry.role === 'tool'));
    expect(tools).toHaveLength(callCount);
    expect(tools.every((entry) => entry.is_error === true && entry.content.startsWith('Error: '))).toBe(true);
    expect(snapshot).toMatchObject({
      todos: [],
      plan: null,
      children: [],
      tasks: [],
      goals: [],
      loops: [],
      cron_jobs: [],
      pending_questions: [],
    });

    expect(await harness.workflowTaskFailures(session.id)).toEqual([]);
    const messageId = await session.send('Are you all right?');
    const next = await session.waitUntilIdle({ messageId, timeoutMs: 30_000 });
    expect(next.last_message).toMatchObject({ role: 'assistant', content: 'Still here.' });
    expect(await harness.workflowStatus(session.id)).toBe('RUNNING');
  });

  it('refuses SDK calls with bad arguments with a clear ArborClientError, starting nothing', async () => {
    const { client } = harness;
    const instruction = `sdk arguments ${randomUUID()}`;
    model.script(instruction, { content: 'Ready.' });
    const session = await client.startSession({ instruction, title: 'Bad arguments' });
    await session.waitUntilIdle({ timeoutMs: 30_000 });
    const unknownSession = client.session(randomUUID());
    const onQueue = `TaskQueue = "${harness.settings.taskQueue}"`;
    await waitUntil(async () => (await client.temporal.workflow.count(`WorkflowId = "${session.id}"`)).count === 1);
    const sessionsBefore = (await client.temporal.workflow.count(onQueue)).count;

    const refusals: [string, () => unknown, RegExp][] = [
      ['a session without options', () => client.startSession(undefined as never), /^Invalid session options: .*expected object/s],
      ['a session without an instruction', () => client.startSession({}), /^A session needs an instruction/],
      ['a blank instruction', () => client.startSession({ instruction: '  \n ' }), /^A session needs an instruction/],
      [
        'an instruction that is not text',
        () => client.startSession({ instruction: 42 } as never),
        /^Invalid session options: .*expected string.*→ at instruction/s,
      ],
      [
        'an instruction over 200,000 characters',
        () => client.startSession({ instruction: 'x'.repeat(200_001) }),
        /Too big.*→ at instruction/s,
      ],
      ['a title over 200 characters', () => client.startSession({ instruction: 'x', title: 't'.repeat(201) }), /→ at title/],
      ['an empty model name', () => client.startSession({ instruction: 'x', model: '' }), /→ at model/],
      ['zero tool rounds', () => client.startSession({ instruction: 'x', max_tool_rounds: 0 }), /Too small.*→ at max_tool_rounds/s],
      [
        'a fractional tool round limit',
        () => client.startSession({ instruction: 'x', max_tool_rounds: 2.5 }),
        /expected int.*→ at max_tool_rounds/s,
      ],
      [
        'a tool round limit given as text',
        () => client.startSession({ instruction: 'x', max_tool_rounds: '10' } as never),
        /expected number.*→ at max_tool_rounds/s,
      ],
      ['a negative fan-out limit', () => client.startSession({ instruction: 'x', max_children: -1 }), /→ at max_children/],
      ['a depth limit over 64', () => client.startSession({ instruction: 'x', max_depth: 65 }), /→ at max_depth/],
      ['a history limit under 100', () => client.startSession({ instruction: 'x', history_limit: 50 }), /→ at history_limit/],
      ['tools given as text', () => client.startSession({ instruction: 'x', tools: 'todoWrite' } as never), /expected array.*→ at tools/s],
      [
        'a tool name no tool can have',
        () => client.startSession({ instruction: 'x', tools: ['todoWrite', 'launch rockets!'] }),
        /^Invalid tool name\(s\): launch rockets!\. A tool is a built-in one \(askUser, todoWrite/,
      ],
      [
        'an owner with spaces',
        () => client.startSession({ instruction: 'x', owner: 'bad owner!' }),
        /an owner id is 1-100 letters.*→ at owner/s,
      ],
      [
        'a session id with spaces around it',
        () => client.session(' 1b4e28ba '),
        /^" 1b4e28ba " is not a session id: a session id is the id of its workflow/,
      ],
      ['an empty session id', () => client.session(''), /^"" is not a session id/],
      ['an empty message', () => session.send(''), /^Invalid message: .*message is empty/s],
      ['a blank message', () => session.send(' \n\t '), /^Invalid message: .*message is empty/s],
      ['a message over 200,000 characters', () => session.send('m'.repeat(200_001)), /^Invalid message: .*Too big.*→ at content/s],
      ['a message that is not text', () => session.send({ text: 'hi' } as never), /^Invalid message: .*expected string.*→ at content/s],
      ['an empty message id', () => session.send('hi', { id: '' }), /^Invalid message: .*→ at id/s],
      ['a message id over 200 characters', () => session.send('hi', { id: 'i'.repeat(201) }), /^Invalid message: .*→ at id/s],
      ['a message to a session that does not exist', () => unknownSession.send('hello?'), /^No session with id [0-9a-f-]{36}\.$/],
      ['a snapshot of a session that does not exist', () => unknownSession.snapshot(), /^No session with id/],
      ['the tree of a session that does not exist', () => unknownSession.tree(), /^No session with id/],
      [
        'answers when no question waits',
        () => session.answer({ 'Which one?': 'A' }),
        /^No questions are waiting for an answer in the tree of session/,
      ],
      ['memories of an owner with spaces', () => client.memories('bad owner!'), /^Invalid owner "bad owner!": an owner id is/],
      ['an empty memory', () => client.memories('alice').save('   '), /content is empty/],
      ['a memory search for nothing', () => client.memories('alice').search(''), /query is empty/],
      ['a memory list limit of zero', () => client.memories('alice').list({ limit: 0 }), /→ at limit/],
      ['automations of an owner with spaces', () => client.automations('bad owner!'), /^Invalid owner "bad owner!"/],
      [
        'an automation with a cron expression for its start',
        () =>
          client
            .automations('alice')
            .create({ title: 'Report', prompt: 'Write it', timezone: 'UTC', start_local: '0 9 * * *', recurrence: 'daily' }),
        /start_local/,
      ],
    ];
    for (const [what, call, message] of refusals) {
      const error = await settle(call);
      expect(error, what).toBeInstanceOf(ArborClientError);
      expect((error as Error).message, what).toMatch(message);
    }

    // None of the refused starts reached Temporal, and the session was sent nothing.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await client.temporal.workflow.count(onQueue)).count).toBe(sessionsBefore);
    expect((await session.snapshot()).message_count).toBe(2);
  });
});

/** The tool messages answering the calls of the given round, as the model received them in the next request. */
function answersOfRound(request: RecordedRequest, round: number): { id: string; name: string; content: string }[] {
  const { messages } = request.body;
  const assistants = messages.flatMap((message, index) => (message.role === 'assistant' && message.tool_calls ? [index] : []));
  const at = assistants[round];
  if (at === undefined) return [];
  const calls = messages[at]!.tool_calls!;
  return calls.map((call, position) => {
    const answer = messages[at + 1 + position];
    expect(answer?.role).toBe('tool');
    expect(answer?.tool_call_id).toBe(call.id);
    return { id: call.id, name: call.function.name, content: answer?.content ?? '' };
  });
}

function describeCall(call: MalformedCall): string {
  const text = (value: unknown) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value))).slice(0, 80);
  return `${text(call.name)}(${text(call.arguments)})`;
}

/** The error a call throws (synchronously or by rejecting), or undefined when it succeeds. */
async function settle(call: () => unknown): Promise<unknown> {
  try {
    await call();
    return undefined;
  } catch (error) {
    return error;
  }
}
