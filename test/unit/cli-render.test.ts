import { describe, expect, it } from 'vitest';
import { howToAnswer, renderTreeEvent } from '../../src/cli/render-event.js';
import { renderSnapshot } from '../../src/cli/render.js';
import type { SessionEvent } from '../../src/shared/events.js';
import type { SessionSnapshot } from '../../src/shared/session.js';
import type { QuestionSet } from '../../src/shared/tools/ask-user.js';

const questionSet: QuestionSet = {
  question_set_id: 'set-1',
  session_id: 'leaf-1',
  session_title: 'Deployer',
  asked_at: '2026-01-01T00:00:00.000Z',
  questions: [
    {
      question: 'Which region?',
      header: 'Region',
      multiSelect: false,
      options: [
        { label: 'Europe', description: 'Frankfurt' },
        { label: 'Asia', description: 'Tokyo' },
      ],
    },
    {
      question: "Which it's extras?",
      header: 'Extras',
      multiSelect: true,
      options: [
        { label: 'Backups', description: 'Daily' },
        { label: 'Alerts', description: 'Pager' },
      ],
    },
  ],
};

const snapshot: SessionSnapshot = {
  session_id: 'root-1',
  owner: 'default',
  title: 'Deploy',
  status: 'running',
  parent_session_id: null,
  root_session_id: 'root-1',
  model: 'demo',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  turn: 1,
  turn_started_at: '2026-01-01T00:00:00.000Z',
  message_count: 3,
  queued_messages: 0,
  last_message: null,
  last_error: null,
  todos: [{ content: 'Deploy it', status: 'in_progress', active_form: 'Deploying' }],
  depth: 0,
  mode: null,
  ancestor_session_ids: [],
  children: [],
  plan: { title: 'Rollout', revision: 2, size: 120 },
  waiting: null,
  pending_questions: [questionSet],
  tasks: [{ id: '2', subject: 'Ship', status: 'pending', owner: 'worker 1', blockedBy: ['1'] }],
  goals: [
    { goal_id: 'goal-1', condition: 'Tests pass', max_turns: 5, completed_turns: 2, status: 'active', created_at: 't', updated_at: 't' },
  ],
  loops: [
    {
      loop_id: 'loop-1',
      prompt: 'Check the queue',
      interval_seconds: 60,
      max_turns: 10,
      firings: 3,
      status: 'active',
      created_at: 't',
      updated_at: 't',
      expires_at: 'e',
      next_fire_at: '2026-01-01T00:04:00.000Z',
    },
  ],
  cron_jobs: [],
  last_event_seq: 9,
};

describe('arbor show', () => {
  it('prints when the latest turn began, the in-progress todo with its active form, the plan revision and size, the board and the waiting questions', () => {
    const text = renderSnapshot(snapshot);
    expect(text).toContain('turns     1 (the latest began 2026-01-01T00:00:00.000Z), messages 3');
    expect(text).toContain('[>] Deploy it (Deploying)');
    expect(text).toContain('plan      Rollout, revision 2, 120 characters');
    expect(text).toContain('  2 [pending] Ship (worker 1), blocked by 1');
    expect(text).toContain('waiting for answers (set set-1, asked by "Deployer" leaf-1):');
    expect(text).toContain('[Region] Which region? Europe | Asia | Other');
    expect(text).toContain('goal      goal-1 [active] 2/5 turns: Tests pass');
    expect(text).toContain('  loop-1 [active] every 60 s, 3/10 firings, next 2026-01-01T00:04:00.000Z: Check the queue');
  });
});

describe('event lines', () => {
  const event = (body: object, seq = 1) => ({ seq, at: '2026-01-01T00:00:00.000Z', session_id: 's', ...body }) as SessionEvent;

  it('says a session is in Plan mode and how to execute its plan, and says nothing of the mode in Execute mode', () => {
    expect(renderSnapshot({ ...snapshot, work_mode: 'plan' })).toContain(
      'mode      Plan: destructive tools do not run until `arbor execute-plan root-1`',
    );
    expect(renderSnapshot({ ...snapshot, work_mode: 'execute' })).not.toMatch(/^mode /m);
  });

  it('tags a sub-agent line with its title and keeps the root untagged', () => {
    const call = event({ type: 'tool_call', tool_call_id: 'c', name: 'webFetch', arguments: '{"url":"https://example.com"}' });
    expect(renderTreeEvent({ event: call, session: { id: 'x', title: 'Researcher', depth: 1 } })).toEqual([
      '[Researcher]   → webFetch({"url":"https://example.com"})',
    ]);
    expect(renderTreeEvent({ event: call, session: { id: 'r', title: 'Root', depth: 0 } })).toEqual([
      '  → webFetch({"url":"https://example.com"})',
    ]);
  });

  it('says which tool calls an interrupt cancelled and which it waited for', () => {
    const root = { id: 'r', title: 'Root', depth: 0 };
    const interrupted = (waited?: string[]) =>
      event({
        type: 'turn_interrupted',
        turn: 2,
        message_id: 'm',
        model_call_cancelled: false,
        tool_calls_cancelled: ['slow_audit'],
        ...(waited ? { tool_calls_waited_for: waited } : {}),
        sub_agents_stopped: 0,
      });
    expect(renderTreeEvent({ event: interrupted(), session: root })).toEqual(['  ⏹ turn 2 interrupted: cancelled tool call(s) slow_audit']);
    expect(renderTreeEvent({ event: interrupted(['stock_count']), session: root })).toEqual([
      '  ⏹ turn 2 interrupted: cancelled tool call(s) slow_audit; waited for tool call(s) stock_count',
    ]);
  });

  it('shows notifications and todo updates', () => {
    const session = { id: 'r', title: 'Root', depth: 0 };
    expect(
      renderTreeEvent({
        event: event({ type: 'notification', notification_type: 'success', title: 'Built', message: 'All green' }),
        session,
      }),
    ).toEqual(['  🔔 [success] Built: All green']);
    expect(
      renderTreeEvent({
        event: event({
          type: 'todos_updated',
          todos: [
            { content: 'A', status: 'completed' },
            { content: 'B', status: 'pending' },
          ],
        }),
        session,
      }),
    ).toEqual(['  todos: [x] A  [ ] B']);
  });

  it('names a status change by the status itself, as show, tree and list name it', () => {
    const session = { id: 'r', title: 'Root', depth: 0 };
    expect(renderTreeEvent({ event: event({ type: 'status_changed', from: 'running', to: 'waiting_for_user' }), session })).toEqual([
      '  · waiting_for_user',
    ]);
  });

  it('prints a shell-safe arbor answer command for a question set', () => {
    const text = howToAnswer(questionSet, 'root-1');
    expect(text).toContain(`arbor answer root-1 --set set-1 --answers '{"Which region?":"Europe","Which it'\\''s extras?":["Backups"]}'`);
    expect(text).toContain('- Other: your own words, as {"other": "..."}');
  });
});
