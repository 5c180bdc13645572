import { describe, expect, it } from 'vitest';
import { answeredResult, checkAnswers, unansweredResult } from '../../src/shared/answers.js';
import { askUser, type Question } from '../../src/shared/tools/ask-user.js';
import { SessionState } from '../../src/workflows/session-state.js';
import { SubAgents } from '../../src/workflows/sub-agents.js';
import { dispatchToolCall } from '../../src/workflows/tools/dispatch.js';

const option = (label: string, extra: object = {}) => ({ label, description: `${label} explained`, ...extra });
const good = { question: 'Which database should we use?', header: 'Database', options: [option('Postgres'), option('SQLite')] };

function context() {
  const state = new SessionState(
    {
      session_id: 's',
      owner: 'default',
      title: 't',
      parent_session_id: null,
      root_session_id: 's',
      ancestor_session_ids: [],
      depth: 0,
      mode: null,
    },
    { now: () => new Date('2026-01-01T00:00:00Z'), newId: () => 'id' },
  );
  return {
    state,
    subAgents: new SubAgents(state, { maxDepth: 4, maxChildren: 50 }),
    toolNames: ['askUser'],
    reportStatus: () => {},
    callProceeds: () => {},
    stepKey: 'session/turn-1/round-1/call-0',
  };
}

async function refusal(questions: unknown): Promise<string> {
  const outcome = await dispatchToolCall(
    { id: 'c1', name: 'askUser', arguments: JSON.stringify({ questions }) },
    new Set(['askUser']),
    context(),
  );
  expect(outcome.is_error).toBe(true);
  return outcome.content;
}

describe('askUser arguments', () => {
  it('accepts the seed example and defaults multiSelect to false', () => {
    const parsed = askUser.input.parse({ questions: [good] });
    expect(parsed.questions[0]!.multiSelect).toBe(false);
  });

  it.each([
    ['no questions', [], 'ask at least 1 question'],
    ['five questions', [1, 2, 3, 4, 5].map((n) => ({ ...good, question: `Question ${n}?` })), 'ask at most 4 questions at once'],
    ['a question without a question mark', [{ ...good, question: 'Pick a database' }], 'a question must end with a question mark'],
    ['a header over 12 characters', [{ ...good, header: 'Database engine' }], 'a header is at most 12 characters'],
    ['one option', [{ ...good, options: [option('Postgres')] }], 'a question needs at least 2 options'],
    ['five options', [{ ...good, options: ['A', 'B', 'C', 'D', 'E'].map((label) => option(label)) }], 'a question has at most 4 options'],
    [
      'a label of six words',
      [{ ...good, options: [option('one two three four five six'), option('SQLite')] }],
      'an option label must be 1 to 5 words',
    ],
    ['an option without a description', [{ ...good, options: [{ label: 'Postgres' }, option('SQLite')] }], 'description'],
    [
      'a preview on a multi-select question',
      [{ ...good, multiSelect: true, options: [option('Postgres', { preview: 'x' }), option('SQLite')] }],
      'preview is only allowed on single-select questions',
    ],
    ['the same label twice', [{ ...good, options: [option('Postgres'), option('postgres')] }], 'option labels must be different'],
    ['an explicit Other option', [{ ...good, options: [option('Postgres'), option('Other')] }], '"Other" is always offered'],
    ['the same question twice', [good, good], 'each question must be asked only once'],
  ])('refuses %s with a tool error naming the rule', async (_case, questions, message) => {
    const content = await refusal(questions);
    expect(content).toMatch(/^Error: Invalid arguments for askUser/);
    expect(content).toContain(message);
  });
});

const colour: Question = { question: 'Which colour?', header: 'Colour', multiSelect: false, options: [option('Blue'), option('Green')] };
const extras: Question = {
  question: 'Which extras?',
  header: 'Extras',
  multiSelect: true,
  options: [option('Dark mode'), option('Export')],
};

describe('answers', () => {
  it.each([
    ['not an object', ['Blue'], 'answers must be a JSON object'],
    [
      'an unknown question',
      { 'Which size?': 'L', 'Which colour?': 'Blue', 'Which extras?': 'Export' },
      '"Which size?" is not one of the questions asked',
    ],
    ['a missing question', { 'Which colour?': 'Blue' }, 'No answer for "Which extras?": every question needs one.'],
    [
      'a label not offered',
      { 'Which colour?': 'Red', 'Which extras?': 'Export' },
      '"Red" is not an option of "Which colour?". The options are "Blue", "Green"',
    ],
    [
      'two labels on a single-select question',
      { 'Which colour?': ['Blue', 'Green'], 'Which extras?': 'Export' },
      '"Which colour?" takes a single answer, got 2.',
    ],
    [
      'a label and Other on a single-select question',
      { 'Which colour?': ['Blue', { other: 'Teal' }], 'Which extras?': 'Export' },
      'takes a single answer, got 2',
    ],
    ['an empty choice list', { 'Which colour?': 'Blue', 'Which extras?': [] }, 'No option chosen for "Which extras?".'],
    ['an empty Other', { 'Which colour?': 'Other: ', 'Which extras?': 'Export' }, 'The "Other" answer to "Which colour?" is empty'],
    ['a number', { 'Which colour?': 3, 'Which extras?': 'Export' }, 'must be a label, a list of labels, or {"other": "your text"}'],
    [
      'a question answered twice (text and header)',
      { 'Which colour?': 'Blue', Colour: 'Green', 'Which extras?': 'Export' },
      '"Which colour?" is answered twice.',
    ],
  ])('refuses %s', (_case, answers, message) => {
    const check = checkAnswers([colour, extras], answers);
    expect(check.ok).toBe(false);
    expect(!check.ok && check.error).toContain(message);
  });

  it('accepts labels in any case, headers as keys, several labels and Other in both spellings', () => {
    const check = checkAnswers([colour, extras], { colour: 'green', 'Which extras?': ['Export', 'Dark mode', { other: 'Sync' }] });
    expect(check).toEqual({
      ok: true,
      answers: [
        { question: 'Which colour?', selected: ['Green'] },
        { question: 'Which extras?', selected: ['Export', 'Dark mode'], other: 'Sync' },
      ],
    });
    const other = checkAnswers([colour], { 'Which colour?': 'Other: sea blue' });
    expect(other.ok && other.answers).toEqual([{ question: 'Which colour?', selected: [], other: 'sea blue' }]);
  });

  it('renders the seed result text for one and several answers', () => {
    expect(answeredResult([{ question: 'Which date formatting library should we use?', selected: ['date-fns'] }])).toBe(
      'User has answered your questions: "Which date formatting library should we use?"="date-fns". You can now continue with the user\'s answers in mind.',
    );
    expect(
      answeredResult([
        { question: 'Which colour?', selected: [], other: 'Teal' },
        { question: 'Which extras?', selected: ['Dark mode', 'Export'] },
      ]),
    ).toBe(
      'User has answered your questions: "Which colour?"="Teal", "Which extras?"="Dark mode, Export". You can now continue with the user\'s answers in mind.',
    );
  });

  it('says the user did not answer, and for how long it waited', () => {
    expect(unansweredResult([colour], 172_800)).toMatch(/^The user did not answer your questions \("Which colour\?"\) within 2 day\(s\)\./);
  });
});
