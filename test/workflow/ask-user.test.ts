import { WorkflowUpdateFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ArborClientError } from '../../src/client/errors.js';
import type { SessionHandle } from '../../src/client/session-handle.js';
import type { SessionEvent } from '../../src/shared/events.js';
import { answerQuestionsUpdate } from '../../src/shared/messages.js';
import { createTestArbor, ScriptedModel, text, toolCall, toolCalls, type TestArbor } from '../../src/testing.js';

const colour = {
  question: 'Which colour should the button be?',
  header: 'Colour',
  options: [
    { label: 'Blue', description: 'Calm and familiar' },
    { label: 'Green', description: 'Signals success', preview: 'A green button' },
  ],
};
const extras = {
  question: 'Which extras do you want?',
  header: 'Extras',
  multiSelect: true,
  options: [
    { label: 'Dark mode', description: 'A dark theme' },
    { label: 'Keyboard shortcuts', description: 'Faster navigation' },
    { label: 'Export to CSV', description: 'Download the data' },
  ],
};

describe('askUser (the testing kit on the time-skipping server, scripted model)', () => {
  const model = new ScriptedModel();
  let arbor: TestArbor;
  let counter = 0;
  const unique = (label: string) => `${label} ${++counter}`;

  beforeAll(async () => {
    // Questions time out after an hour: only the test that skips time lets one expire.
    arbor = await createTestArbor({
      model,
      modelName: 'ask-model',
      questionTimeoutSeconds: 3_600,
      workflowBundlePath: inject('workflowBundlePath'),
    });
  });

  afterAll(async () => {
    await arbor?.teardown();
  });

  /** The one question set the session's tree waits on. */
  async function theQuestionSet(session: SessionHandle) {
    const sets = await arbor.waitForUser(session);
    expect(sets).toHaveLength(1);
    return sets[0]!;
  }

  it('pauses the turn as waiting_for_user and returns the seed text for one answer', async () => {
    const instruction = unique('ask one');
    model.forInstruction(instruction, toolCall('askUser', { questions: [colour] }), text('Blue it is.'));
    const session = await arbor.startSession({ instruction });
    const set = await theQuestionSet(session);
    const snapshot = await arbor.snapshot(session);
    expect(snapshot.status).toBe('waiting_for_user');
    expect(set).toMatchObject({ session_id: session.id, session_title: snapshot.title, questions: [{ ...colour, multiSelect: false }] });

    const receipt = await session.answer({ [colour.question]: 'Blue' });
    expect(receipt).toMatchObject({ question_set_id: set.question_set_id, session_id: session.id });
    const idle = await arbor.waitUntilIdle(session);
    expect(idle.status).toBe('idle');
    expect(idle.pending_questions).toEqual([]);
    expect(model.requestsFor(instruction)[1]!.toolResults).toEqual([
      'User has answered your questions: "Which colour should the button be?"="Blue". You can now continue with the user\'s answers in mind.',
    ]);
  });

  it('joins several questions, several labels and an Other answer with ", "', async () => {
    const instruction = unique('ask several');
    model.forInstruction(instruction, toolCall('askUser', { questions: [colour, extras] }), text('Noted.'));
    const session = await arbor.startSession({ instruction });
    await theQuestionSet(session);
    await arbor.answerQuestions(session, {
      [colour.question]: { other: 'Burnt orange' },
      [extras.question]: ['Dark mode', 'Export to CSV'],
    });
    await arbor.waitUntilIdle(session);
    expect(model.requestsFor(instruction)[1]!.toolResults).toEqual([
      'User has answered your questions: "Which colour should the button be?"="Burnt orange", ' +
        '"Which extras do you want?"="Dark mode, Export to CSV". You can now continue with the user\'s answers in mind.',
    ]);
  });

  it('refuses bad answers with a clear error and changes nothing', async () => {
    const instruction = unique('ask strict');
    model.forInstruction(instruction, toolCall('askUser', { questions: [colour, extras] }), text('Done.'));
    const session = await arbor.startSession({ instruction });
    const set = await theQuestionSet(session);
    const before = await arbor.snapshot(session);
    const bad: [unknown, RegExp, string?][] = [
      [{ [colour.question]: 'Blue', [extras.question]: ['Dark mode'] }, /No question set nope is waiting/, 'nope'],
      [
        { [colour.question]: 'Purple', [extras.question]: ['Dark mode'] },
        /"Purple" is not an option of "Which colour should the button be\?"/,
      ],
      [{ [colour.question]: ['Blue', 'Green'], [extras.question]: ['Dark mode'] }, /takes a single answer, got 2/],
      [{ [colour.question]: 'Blue' }, /No answer for "Which extras do you want\?"/],
      [{ [colour.question]: 'Blue', [extras.question]: [], 'Why?': 'x' }, /"Why\?" is not one of the questions asked/],
      [{ [colour.question]: { other: '  ' }, [extras.question]: ['Dark mode'] }, /"Other" answer .* is empty/],
    ];
    for (const [answers, message, id] of bad) {
      await expect(session.answer(answers as never, id ? { questionSetId: id } : {})).rejects.toThrow(message);
    }
    // The workflow's own validator refuses too, with nothing written to history.
    await expect(
      arbor.env.client.workflow.getHandle(session.id).executeUpdate(answerQuestionsUpdate, {
        args: [{ question_set_id: set.question_set_id, answers: { [colour.question]: 'Purple', [extras.question]: 'Dark mode' } }],
      }),
    ).rejects.toThrow(WorkflowUpdateFailedError);
    const after = await arbor.snapshot(session);
    expect(after).toMatchObject({
      status: 'waiting_for_user',
      last_event_seq: before.last_event_seq,
      pending_questions: before.pending_questions,
    });

    await session.answer({ [colour.question]: 'green', [extras.question]: 'Keyboard shortcuts' });
    await expect(
      session.answer({ [colour.question]: 'Blue', [extras.question]: 'Dark mode' }, { questionSetId: set.question_set_id }),
    ).rejects.toThrow(ArborClientError);
    await arbor.waitUntilIdle(session);
    expect(model.requestsFor(instruction)[1]!.toolResults[0]).toContain(
      '"Which colour should the button be?"="Green", "Which extras do you want?"="Keyboard shortcuts"',
    );
  });

  it('routes an answer through the root to a sub-agent two levels down while a sibling keeps working', async () => {
    const root = unique('root of askers');
    const middle = unique('middle');
    const leaf = unique('leaf asks');
    const sibling = unique('sibling works');
    model.forInstruction(
      root,
      toolCalls(['subAgent', { title: 'Middle', instruction: middle }], ['subAgent', { title: 'Sibling', instruction: sibling }]),
      text('Both started.'),
      text('One finished.'),
      text('Both finished.'),
    );
    model.forInstruction(middle, toolCall('subAgent', { title: 'Leaf', instruction: leaf, mode: 'sync' }), text('Middle done.'));
    model.forInstruction(leaf, toolCall('askUser', { questions: [colour] }), text('Leaf done.'));
    model.forInstruction(
      sibling,
      toolCall('todoWrite', { todos: [{ content: 'Work alone', status: 'completed' }] }),
      text('Sibling done.'),
    );
    const session = await arbor.startSession({ instruction: root });
    const set = await theQuestionSet(session);
    const leafId = set.session_id;
    expect(set).toMatchObject({ session_title: 'Leaf', questions: [expect.objectContaining({ question: colour.question })] });
    expect(await arbor.snapshot(leafId)).toMatchObject({ status: 'waiting_for_user', depth: 2 });

    // The sibling finishes while the leaf still waits.
    await arbor.settle(session);
    expect((await arbor.snapshot(session)).children.find((child) => child.title === 'Sibling')?.status).toBe('completed');
    expect((await arbor.snapshot(leafId)).status).toBe('waiting_for_user');

    await session.answer({ [colour.question]: 'Green' });
    await arbor.settle(session);
    const snapshot = await arbor.snapshot(session);
    expect(snapshot.children.map((child) => child.status)).toEqual(['completed', 'completed']);
    expect(model.requestsFor(leaf)[1]!.toolResults).toEqual([
      'User has answered your questions: "Which colour should the button be?"="Green". You can now continue with the user\'s answers in mind.',
    ]);
    expect(snapshot.pending_questions).toEqual([]);
  });

  it('tells the model the user did not answer when the deployment timeout passes', async () => {
    const instruction = unique('ask with timeout');
    model.forInstruction(instruction, toolCall('askUser', { questions: [colour] }), text('Assumed blue.'));
    const session = await arbor.startSession({ instruction });
    await theQuestionSet(session);
    await arbor.fastForward(session, '2 hours');
    const snapshot = await arbor.waitUntilIdle(session);
    expect(snapshot.pending_questions).toEqual([]);
    expect(model.requestsFor(instruction)[1]!.toolResults[0]).toMatch(
      /^The user did not answer your questions \("Which colour should the button be\?"\) within 1 hour\(s\)\./,
    );
    expect((await arbor.events(session)).map((event) => event.type)).toContain('questions_expired');
  });

  it('refuses a soai ask_user secret question on a worker without ARBOR_SECRET_KEY, asking nothing', async () => {
    const instruction = unique('ask secret without key');
    model.forInstruction(
      instruction,
      toolCall('ask_user', { questions: [{ question: 'Your API key?', secret: true }] }),
      text('No key asked.'),
    );
    const session = await arbor.startSession({ instruction, profile: 'soai' });
    const snapshot = await arbor.waitUntilIdle(session);
    expect(model.requestsFor(instruction)[1]!.toolResults[0]).toMatch(
      /^Error: This worker takes no secret answers \(it has no ARBOR_SECRET_KEY\)/,
    );
    expect((await arbor.events(session)).map((event) => event.type)).not.toContain('questions_asked');
    expect(snapshot.pending_questions).toEqual([]);
  });

  it('numbers events in order across a turn with sub-agents, and a reader resumes without loss or duplicates', async () => {
    const root = unique('root events');
    const child = unique('child events');
    model.forInstruction(root, toolCall('subAgent', { title: 'Helper', instruction: child, mode: 'sync' }), text('All done.'));
    model.forInstruction(
      child,
      toolCall('todoWrite', { todos: [{ content: 'Help', status: 'in_progress', active_form: 'Helping' }] }),
      text('Helped.'),
    );
    const session = await arbor.startSession({ instruction: root });
    await arbor.waitUntilIdle(session);
    const events = await arbor.events(session);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events.map((event) => event.type)).toEqual([
      'status_changed', // idle -> running
      'message', // user
      'tool_call',
      'sub_agent_started',
      'sub_agent_finished',
      'tool_result',
      'message', // assistant
      'status_changed', // running -> idle
    ]);
    const started = events.find((event) => event.type === 'sub_agent_started') as Extract<SessionEvent, { type: 'sub_agent_started' }>;
    const childEvents = await arbor.events(started.sub_session_id);
    expect(childEvents.map((event) => event.type)).toEqual([
      'status_changed',
      'message',
      'tool_call',
      'todos_updated',
      'tool_result',
      'message',
      'status_changed', // running -> completed
    ]);

    const firstHalf = await collect(session, 0, 4);
    const rest = await collect(session, firstHalf.at(-1)!.seq);
    expect([...firstHalf, ...rest]).toEqual(events);

    // The tree reader sees both sessions' events, each once.
    const tree: string[] = [];
    for await (const { event, session: from } of session.treeEvents({ signal: AbortSignal.timeout(3_000) }))
      tree.push(`${from.depth}:${event.seq}`);
    expect(new Set(tree).size).toBe(tree.length);
    expect(tree.filter((key) => key.startsWith('1:'))).toHaveLength(childEvents.length);
  });
});

async function collect(session: SessionHandle, after = 0, limit = Infinity): Promise<SessionEvent[]> {
  const events: SessionEvent[] = [];
  for await (const event of session.events({ after, follow: false })) {
    events.push(event);
    if (events.length >= limit) break;
  }
  return events;
}
