import { beforeEach, describe, expect, it } from 'vitest';
import type { QuestionSet } from '../../src/shared/tools/ask-user.js';
import { currentDetails } from '../../src/workflows/current-details.js';
import { SessionState } from '../../src/workflows/session-state.js';
import type { SessionIdentity } from '../../src/workflows/session-identity.js';

const identity: SessionIdentity = {
  session_id: 'root-1',
  owner: 'default',
  title: 'Plan the trip',
  parent_session_id: null,
  root_session_id: 'root-1',
  ancestor_session_ids: [],
  depth: 0,
  mode: null,
};
const settings = { maxToolRounds: 50 };
let state: SessionState;
let ids = 0;

beforeEach(() => {
  state = new SessionState(identity, { now: () => new Date('2026-12-01T10:00:00.000Z'), newId: () => `id-${ids++}` });
});

function questionSet(id: string, question: string, title = 'Plan the trip'): QuestionSet {
  return {
    question_set_id: id,
    session_id: 'root-1',
    session_title: title,
    asked_at: '2026-12-01T10:00:00.000Z',
    questions: [{ question, header: 'Detail', multiSelect: false, options: [{ label: 'Short' }, { label: 'Long' }] }],
  } as QuestionSet;
}

describe('the current details a session shows in the Web UI', () => {
  it('says an idle session waits for a message', () => {
    expect(currentDetails(state, settings)).toBe('**Idle, waiting for a message**');
  });

  it('names the running turn, its model call out of the limit, and the tools it is calling', () => {
    state.setStatus('running');
    state.turn = 2;
    state.append({ role: 'user', content: 'Plan it', turn: 2 });
    expect(currentDetails(state, settings)).toBe('**Running**: turn 2, model call 1 of at most 50, asking the model');
    state.append({
      role: 'assistant',
      content: '',
      turn: 2,
      tool_calls: [
        { id: 'a', name: 'webFetch', arguments: '{}' },
        { id: 'b', name: 'todoWrite', arguments: '{}' },
      ],
    });
    state.append({ role: 'tool', content: 'ok', tool_call_id: 'a', name: 'webFetch', turn: 2 }, { emit: false });
    state.append({ role: 'tool', content: 'ok', tool_call_id: 'b', name: 'todoWrite', turn: 2 }, { emit: false });
    state.append({ role: 'assistant', content: '', turn: 2, tool_calls: [{ id: 'c', name: 'wait', arguments: '{}' }] });
    expect(currentDetails(state, settings)).toBe('**Running**: turn 2, model call 2 of at most 50, calling wait');
  });

  it('gives the text of each question waiting for an answer, its own and those of sub-agents below', () => {
    state.setStatus('waiting_for_user');
    state.questions.push(questionSet('set-1', 'How detailed should my answer be?'));
    state.questions.push({ ...questionSet('set-0', 'Already answered?'), answers: [] });
    state.applyTreeQuestions({
      kind: 'asked',
      question_set: questionSet('set-2', 'Which city?', 'Helper'),
      ancestor_session_ids: ['root-1'],
    });
    expect(currentDetails(state, settings).split('\n')).toEqual([
      '**Waiting for an answer**',
      '- Question asked: How detailed should my answer be? (set set-1)',
      '- Sub-agent "Helper" asks: Which city? (set set-2)',
    ]);
  });

  it('says until when a wait lasts, which sub-agents run, when loops and cron jobs fire, and what goals have used', () => {
    state.setStatus('running');
    state.waiting = { until: '2026-12-07T10:00:00.000Z', reason: 'weekly report' };
    state.children.push(
      { sub_session_id: 's1', title: 'Research', mode: 'async', status: 'running', created_at: '', updated_at: '', final_message: null },
      { sub_session_id: 's2', title: 'Done one', mode: 'sync', status: 'completed', created_at: '', updated_at: '', final_message: null },
    );
    state.loops.loops.push({
      loop_id: 'loop-1',
      prompt: 'Check the queue',
      interval_seconds: 60,
      max_turns: 10,
      firings: 2,
      status: 'active',
      created_at: '',
      updated_at: '',
      expires_at: '2026-12-08T10:00:00.000Z',
      next_fire_at: '2026-12-01T10:01:00.000Z',
    });
    state.goals.goals.push({
      goal_id: 'goal-1',
      condition: 'The report is written',
      max_turns: 3,
      completed_turns: 1,
      status: 'active',
      created_at: '',
      updated_at: '',
    });
    state.enqueue({ content: 'Also this', source: 'user' });
    const lines = currentDetails(state, settings).split('\n');
    expect(lines.slice(1)).toEqual([
      '- Waiting until 2026-12-07T10:00:00.000Z: weekly report',
      '- 1 sub-agent running: "Research" (async)',
      '- Loop loop-1 fires next at 2026-12-01T10:01:00.000Z (firing 3 of at most 10): Check the queue',
      '- Goal goal-1, 1 of at most 3 turns used: The report is written',
      '- 1 message queued',
    ]);
  });

  it('lists at most five sub-agents and counts the rest', () => {
    for (let n = 0; n < 7; n++) {
      state.children.push({
        sub_session_id: `s${n}`,
        title: `Helper ${n}`,
        mode: 'async',
        status: 'idle',
        created_at: '',
        updated_at: '',
        final_message: null,
      });
    }
    expect(currentDetails(state, settings)).toContain(
      '- 7 sub-agents running: "Helper 0" (async), "Helper 1" (async), "Helper 2" (async), "Helper 3" (async), "Helper 4" (async) and 2 more',
    );
  });

  it('says only how a closed session ended, with the error of a failed one', () => {
    state.waiting = { until: '2026-12-07T10:00:00.000Z', reason: null };
    state.setStatus('completed');
    expect(currentDetails(state, settings)).toBe('**Completed**');
    state.setStatus('failed');
    state.lastError = 'The model endpoint refused the key (401).';
    expect(currentDetails(state, settings)).toBe('**Failed**: The model endpoint refused the key (401).');
  });
});
