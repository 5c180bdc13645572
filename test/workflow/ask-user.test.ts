import { describe, expect, it } from 'vitest';
import { ArborClientError } from '../../src/client/errors.js';
import { SessionHandle } from '../../src/client/session-handle.js';
import type { SessionEvent } from '../../src/shared/events.js';
import { answerQuestionsUpdate } from '../../src/shared/messages.js';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { SessionInput } from '../../src/shared/session.js';
import { call, toolResults } from '../support/scripted-model.js';
import { withWorker } from '../support/time-skipping.js';
import { scriptedTimeSkipping } from '../support/scripted-time-skipping.js';
import { waitUntilTimerStarted } from '../support/settle.js';
import { waitUntil } from '../support/wait.js';

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

describe('askUser (time-skipping server, scripted model)', () => {
  const scripted = scriptedTimeSkipping('ask-model');
  const { fake, model } = scripted;

  const start = (taskQueue: string, input: SessionInput) => scripted.start(taskQueue, input);

  const { unique } = scripted;

  async function waitForQuestions(session: SessionHandle, count = 1) {
    await waitUntil(async () => (await session.pendingQuestions()).length === count);
    return session.pendingQuestions();
  }

  it('pauses the turn as waiting_for_user and returns the seed text for one answer', async () => {
    const instruction = unique('ask one');
    model.script(instruction, call('askUser', { questions: [colour] }), { content: 'Blue it is.' });
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction });
      const [set] = await waitForQuestions(session);
      const snapshot = await session.snapshot();
      expect(snapshot.status).toBe('waiting_for_user');
      expect(set).toMatchObject({ session_id: session.id, session_title: snapshot.title, questions: [{ ...colour, multiSelect: false }] });

      const receipt = await session.answer({ [colour.question]: 'Blue' });
      expect(receipt).toMatchObject({ question_set_id: set!.question_set_id, session_id: session.id });
      const idle = await session.waitUntilIdle({ timeoutMs: 30_000 });
      expect(idle.status).toBe('idle');
      expect(idle.pending_questions).toEqual([]);
      expect(toolResults(fake.requestsFor(instruction)[1]!)).toEqual([
        'User has answered your questions: "Which colour should the button be?"="Blue". You can now continue with the user\'s answers in mind.',
      ]);
    });
  });

  it('joins several questions, several labels and an Other answer with ", "', async () => {
    const instruction = unique('ask several');
    model.script(instruction, call('askUser', { questions: [colour, extras] }), { content: 'Noted.' });
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction });
      await waitForQuestions(session);
      await session.answer({ [colour.question]: { other: 'Burnt orange' }, [extras.question]: ['Dark mode', 'Export to CSV'] });
      await session.waitUntilIdle({ timeoutMs: 30_000 });
      expect(toolResults(fake.requestsFor(instruction)[1]!)).toEqual([
        'User has answered your questions: "Which colour should the button be?"="Burnt orange", ' +
          '"Which extras do you want?"="Dark mode, Export to CSV". You can now continue with the user\'s answers in mind.',
      ]);
    });
  });

  it('refuses bad answers with a clear error and changes nothing', async () => {
    const instruction = unique('ask strict');
    model.script(instruction, call('askUser', { questions: [colour, extras] }), { content: 'Done.' });
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction });
      const [set] = await waitForQuestions(session);
      const before = await session.snapshot();
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
        scripted.env.client.workflow.getHandle(session.id).executeUpdate(answerQuestionsUpdate, {
          args: [{ question_set_id: set!.question_set_id, answers: { [colour.question]: 'Purple', [extras.question]: 'Dark mode' } }],
        }),
      ).rejects.toThrow(WorkflowUpdateFailedError);
      const after = await session.snapshot();
      expect(after).toMatchObject({
        status: 'waiting_for_user',
        last_event_seq: before.last_event_seq,
        pending_questions: before.pending_questions,
      });

      await session.answer({ [colour.question]: 'green', [extras.question]: 'Keyboard shortcuts' });
      await expect(
        session.answer({ [colour.question]: 'Blue', [extras.question]: 'Dark mode' }, { questionSetId: set!.question_set_id }),
      ).rejects.toThrow(ArborClientError);
      await session.waitUntilIdle({ timeoutMs: 30_000 });
      expect(toolResults(fake.requestsFor(instruction)[1]!)[0]).toContain(
        '"Which colour should the button be?"="Green", "Which extras do you want?"="Keyboard shortcuts"',
      );
    });
  });

  it('routes an answer through the root to a sub-agent two levels down while a sibling keeps working', async () => {
    const root = unique('root of askers');
    const middle = unique('middle');
    const leaf = unique('leaf asks');
    const sibling = unique('sibling works');
    model.script(
      root,
      {
        toolCalls: [
          { name: 'subAgent', arguments: JSON.stringify({ title: 'Middle', instruction: middle }) },
          { name: 'subAgent', arguments: JSON.stringify({ title: 'Sibling', instruction: sibling }) },
        ],
      },
      { content: 'Both started.' },
      { content: 'One finished.' },
      { content: 'Both finished.' },
    );
    model.script(middle, call('subAgent', { title: 'Leaf', instruction: leaf, mode: 'sync' }), { content: 'Middle done.' });
    model.script(leaf, call('askUser', { questions: [colour] }), { content: 'Leaf done.' });
    model.script(sibling, call('todoWrite', { todos: [{ content: 'Work alone', status: 'completed' }] }), { content: 'Sibling done.' });
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction: root });
      const [set] = await waitForQuestions(session);
      const leafId = set!.session_id;
      expect(set).toMatchObject({ session_title: 'Leaf', questions: [expect.objectContaining({ question: colour.question })] });
      const leafSnapshot = await new SessionHandle(leafId, scripted.env.client).snapshot();
      expect(leafSnapshot).toMatchObject({ status: 'waiting_for_user', depth: 2 });

      // The sibling finishes while the leaf still waits.
      await waitUntil(async () => (await session.snapshot()).children.find((child) => child.title === 'Sibling')?.status === 'completed');
      expect((await new SessionHandle(leafId, scripted.env.client).snapshot()).status).toBe('waiting_for_user');

      await session.answer({ [colour.question]: 'Green' });
      await waitUntil(async () => (await session.snapshot()).children.every((child) => child.status === 'completed'));
      expect(toolResults(fake.requestsFor(leaf)[1]!)).toEqual([
        'User has answered your questions: "Which colour should the button be?"="Green". You can now continue with the user\'s answers in mind.',
      ]);
      expect((await session.snapshot()).pending_questions).toEqual([]);
    });
  });

  it('tells the model the user did not answer when the deployment timeout passes', async () => {
    const instruction = unique('ask with timeout');
    model.script(instruction, call('askUser', { questions: [colour] }), { content: 'Assumed blue.' });
    await withWorker(
      scripted.env,
      scripted.settings,
      async (taskQueue) => {
        const session = await start(taskQueue, { instruction });
        await waitUntilTimerStarted(scripted.env.client, session.id);
        expect(await session.pendingQuestions()).toHaveLength(1);
        await scripted.env.sleep('2 hours');
        const snapshot = await session.waitUntilIdle({ timeoutMs: 30_000 });
        expect(snapshot.pending_questions).toEqual([]);
        expect(toolResults(fake.requestsFor(instruction)[1]!)[0]).toMatch(
          /^The user did not answer your questions \("Which colour should the button be\?"\) within 1 hour\(s\)\./,
        );
        const events = await collect(session);
        expect(events.map((event) => event.type)).toContain('questions_expired');
      },
      { questionTimeoutSeconds: 3_600 },
    );
  });

  it('numbers events in order across a turn with sub-agents, and a reader resumes without loss or duplicates', async () => {
    const root = unique('root events');
    const child = unique('child events');
    model.script(root, call('subAgent', { title: 'Helper', instruction: child, mode: 'sync' }), { content: 'All done.' });
    model.script(child, call('todoWrite', { todos: [{ content: 'Help', status: 'in_progress', active_form: 'Helping' }] }), {
      content: 'Helped.',
    });
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction: root });
      await session.waitUntilIdle({ timeoutMs: 30_000 });
      const events = await collect(session);
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
      const childId = events.find((event) => event.type === 'sub_agent_started')!;
      const childEvents = await collect(
        new SessionHandle((childId as Extract<SessionEvent, { type: 'sub_agent_started' }>).sub_session_id, scripted.env.client),
      );
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
});

async function collect(session: SessionHandle, after = 0, limit = Infinity): Promise<SessionEvent[]> {
  const events: SessionEvent[] = [];
  for await (const event of session.events({ after, follow: false })) {
    events.push(event);
    if (events.length >= limit) break;
  }
  return events;
}
