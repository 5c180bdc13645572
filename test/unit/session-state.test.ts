import { beforeEach, describe, expect, it } from 'vitest';
import type { TranscriptEntry } from '../../src/shared/session.js';
import { utf8Length } from '../../src/shared/utf8.js';
import { carriedEventBytes } from '../../src/workflows/event-log.js';
import { carriedClosedChildren, carriedStateBytes, carriedTranscriptBytes, carriedTranscriptEntries, compactTranscript, SessionState, type SessionIdentity, type StateClock } from '../../src/workflows/session-state.js';

/** A clock that advances one second per `now()` call, so every timestamp it hands out is distinct. */
function fakeClock(start = Date.parse('2024-05-01T10:00:00.000Z')): StateClock & { calls: number } {
  let n = 0;
  const clock = {
    calls: 0,
    now: () => new Date(start + 1000 * clock.calls++),
    newId: () => `id-${n++}`,
  };
  return clock;
}

const identity: SessionIdentity = {
  session_id: 'sess-1',
  owner: 'default',
  title: 'Plan the trip',
  parent_session_id: 'sess-0',
  root_session_id: 'sess-root',
  ancestor_session_ids: ['sess-root', 'sess-0'],
  depth: 2,
  mode: 'async',
};

let clock: ReturnType<typeof fakeClock>;
let state: SessionState;

beforeEach(() => {
  clock = fakeClock();
  state = new SessionState(identity, clock);
});

describe('SessionState construction', () => {
  it('starts idle and empty, with created_at and updated_at taken from the clock', () => {
    expect(state.status).toBe('idle');
    expect(state.transcript).toEqual([]);
    expect(state.inbox).toEqual([]);
    expect(state.turn).toBe(0);
    expect(state.todos).toEqual([]);
    expect(state.lastError).toBeNull();
    expect(state.createdAt).toBe('2024-05-01T10:00:00.000Z');
    expect(state.updatedAt).toBe('2024-05-01T10:00:00.000Z');
  });
});

describe('the session environment', () => {
  const environment = {
    model: 'gpt-big',
    provider: 'openai-compatible' as const,
    search_attributes: true,
    unavailable_tools: ['webSearch'],
    question_timeout_seconds: 600,
    loop_min_interval_seconds: 30,
    loop_max_age_seconds: 86_400,
    cron_timezone: 'Europe/Paris',
  };

  it('takes in every setting the worker describes', () => {
    state.applyEnvironment(environment);
    expect(state.model).toBe('gpt-big');
    expect(state.searchAttributes).toBe(true);
    expect(state.unavailableTools).toEqual(['webSearch']);
    expect(state.questionTimeoutSeconds).toBe(600);
    expect(state.loopLimits).toEqual({ minIntervalSeconds: 30, maxAgeSeconds: 86_400 });
    expect(state.cronTimezone).toBe('Europe/Paris');
  });

  it('hands a sub-agent the same settings, with the model it asks for or else its parent’s', () => {
    state.applyEnvironment(environment);
    expect(state.environmentFor()).toEqual(environment);
    expect(state.environmentFor('demo')).toEqual({ ...environment, model: 'demo', provider: 'demo' });
    const child = new SessionState({ ...identity, session_id: 'sess-2' }, fakeClock());
    child.applyEnvironment(state.environmentFor('gpt-small'));
    expect(child.environmentFor()).toEqual({ ...environment, model: 'gpt-small' });
  });

  it('keeps the defaults for what an older worker did not describe', () => {
    state.applyEnvironment({ model: 'demo', provider: 'demo', search_attributes: false });
    expect(state.environmentFor()).toEqual({
      model: 'demo',
      provider: 'demo',
      search_attributes: false,
      loop_min_interval_seconds: 10,
      loop_max_age_seconds: 604_800,
      cron_timezone: 'UTC',
    });
  });
});

describe('enqueue and messageState', () => {
  it('queues a message under its own id and reports it as queued', () => {
    state.enqueue({ id: 'm1', content: 'hello' });
    expect(state.inbox).toEqual([{ id: 'm1', content: 'hello' }]);
    expect(state.messageState('m1')).toBe('queued');
  });

  it('gives a message without an id a fresh id from the clock', () => {
    state.enqueue({ content: 'first' });
    state.enqueue({ content: 'second' });
    expect(state.inbox).toEqual([
      { id: 'id-0', content: 'first' },
      { id: 'id-1', content: 'second' },
    ]);
  });

  it('ignores a second message with an id that is already queued', () => {
    state.enqueue({ id: 'm1', content: 'hello' });
    state.enqueue({ id: 'm1', content: 'hello again' });
    expect(state.inbox).toEqual([{ id: 'm1', content: 'hello' }]);
  });

  it('ignores a message whose id was already handled into the transcript', () => {
    state.enqueue({ id: 'm1', content: 'hello' });
    for (const message of state.takeInbox()) state.append({ id: message.id, role: 'user', content: message.content });
    state.enqueue({ id: 'm1', content: 'hello' });
    expect(state.inbox).toEqual([]);
    expect(state.transcript.filter((entry) => entry.role === 'user')).toHaveLength(1);
  });

  it('does not touch updated_at when a duplicate is ignored', () => {
    state.enqueue({ id: 'm1', content: 'hello' });
    const after = state.updatedAt;
    state.enqueue({ id: 'm1', content: 'hello' });
    expect(state.updatedAt).toBe(after);
  });

  it('moves updated_at forward when a message is queued', () => {
    const before = state.updatedAt;
    state.enqueue({ id: 'm1', content: 'hello' });
    expect(Date.parse(state.updatedAt)).toBeGreaterThan(Date.parse(before));
  });

  it('reports unknown for an id it has never seen', () => {
    expect(state.messageState('nope')).toBe('unknown');
  });

  it('reports handled for a user entry in the transcript', () => {
    state.append({ id: 'u1', role: 'user', content: 'hi' });
    expect(state.messageState('u1')).toBe('handled');
  });

  it('does not count a non-user entry with the same id as a handled message', () => {
    state.append({ id: 'x', role: 'assistant', content: 'hi' });
    expect(state.messageState('x')).toBe('unknown');
  });
});

describe('takeInbox', () => {
  it('returns the queued messages in order and leaves the inbox empty', () => {
    state.enqueue({ id: 'a', content: 'one' });
    state.enqueue({ id: 'b', content: 'two' });
    const taken = state.takeInbox();
    expect(taken.map((message) => message.id)).toEqual(['a', 'b']);
    expect(state.inbox).toEqual([]);
    expect(state.takeInbox()).toEqual([]);
  });

  it('takes messages up to the batch size, at least one, and leaves the rest queued in order', () => {
    for (const [id, length] of [['a', 60], ['b', 50], ['c', 10], ['d', 200]] as const) state.enqueue({ id, content: 'x'.repeat(length) });
    expect(state.takeInbox(100).map((message) => message.id)).toEqual(['a']);
    expect(state.snapshot().queued_messages).toBe(3);
    expect(state.messageState('b')).toBe('queued');
    expect(state.takeInbox(100).map((message) => message.id)).toEqual(['b', 'c']);
    expect(state.takeInbox(100).map((message) => message.id)).toEqual(['d']);
    expect(state.inbox).toEqual([]);
  });

  it('takes everything without a batch size (runs from before the bound)', () => {
    state.enqueue({ id: 'b', content: 'x'.repeat(80) });
    state.enqueue({ id: 'c', content: 'x'.repeat(80) });
    expect(state.takeInbox().map((message) => message.id)).toEqual(['b', 'c']);
  });
});

describe('append', () => {
  it('assigns an id and created_at from the clock and pushes the entry', () => {
    const entry = state.append({ role: 'assistant', content: 'done', turn: 1 });
    expect(entry).toEqual({ role: 'assistant', content: 'done', turn: 1, id: 'id-0', created_at: '2024-05-01T10:00:01.000Z' });
    expect(state.transcript).toEqual([entry]);
  });

  it('keeps an id the caller supplies', () => {
    const entry = state.append({ id: 'given', role: 'user', content: 'hi' });
    expect(entry.id).toBe('given');
  });

  it('moves updated_at forward', () => {
    const before = state.updatedAt;
    state.append({ role: 'notice', content: 'n' });
    expect(Date.parse(state.updatedAt)).toBeGreaterThan(Date.parse(before));
  });
});

describe('transcriptRange', () => {
  beforeEach(() => {
    for (let i = 0; i < 5; i++) state.append({ role: 'user', content: `m${i}` });
  });
  const contents = (entries: TranscriptEntry[]) => entries.map((entry) => entry.content);

  it('returns the whole transcript without a range', () => {
    expect(contents(state.transcriptRange())).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
  });

  it('starts at offset and returns at most limit entries', () => {
    expect(contents(state.transcriptRange({ offset: 1, limit: 2 }))).toEqual(['m1', 'm2']);
  });

  it('returns everything from offset when no limit is given', () => {
    expect(contents(state.transcriptRange({ offset: 3 }))).toEqual(['m3', 'm4']);
  });

  it('treats a negative offset as zero and a negative limit as zero', () => {
    expect(contents(state.transcriptRange({ offset: -3, limit: 1 }))).toEqual(['m0']);
    expect(state.transcriptRange({ offset: 1, limit: -1 })).toEqual([]);
  });

  it('returns nothing for an offset past the end', () => {
    expect(state.transcriptRange({ offset: 10 })).toEqual([]);
  });

  it('returns a copy that does not alias the transcript', () => {
    const range = state.transcriptRange();
    range.pop();
    expect(state.transcript).toHaveLength(5);
  });

  it('stops a page with max_chars before the entry that would pass it, but always gives one entry', () => {
    state.append({ role: 'user', content: 'x'.repeat(10) });
    state.append({ role: 'user', content: 'y'.repeat(10) });
    // m0..m4 are two characters each.
    expect(contents(state.transcriptRange({ max_chars: 6 }))).toEqual(['m0', 'm1', 'm2']);
    expect(contents(state.transcriptRange({ offset: 3, max_chars: 14 }))).toEqual(['m3', 'm4', 'x'.repeat(10)]);
    expect(contents(state.transcriptRange({ offset: 5, max_chars: 1 }))).toEqual(['x'.repeat(10)]);
    expect(contents(state.transcriptRange({ offset: 1, limit: 2, max_chars: 1_000 }))).toEqual(['m1', 'm2']);
  });

  it.each([0, -1, 'many', null])('ignores a max_chars of %j from a caller', (maxChars) => {
    expect(state.transcriptRange({ max_chars: maxChars as number })).toHaveLength(5);
  });
});

describe('finalMessage', () => {
  it('is null when no assistant has spoken', () => {
    state.append({ role: 'user', content: 'hi' });
    expect(state.finalMessage()).toBeNull();
  });

  it('is the last assistant content, skipping assistant entries that only called tools and later tool entries', () => {
    state.append({ role: 'assistant', content: 'first answer' });
    state.append({ role: 'user', content: 'more' });
    state.append({ role: 'assistant', content: 'second answer' });
    state.append({ role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'todoWrite', arguments: '{}' }] });
    state.append({ role: 'tool', content: 'ok', tool_call_id: 'c1', name: 'todoWrite' });
    state.append({ role: 'error', content: 'boom' });
    expect(state.finalMessage()).toBe('second answer');
  });
});

describe('snapshot', () => {
  it('reports identity, status, counts and the last message', () => {
    state.model = 'demo';
    state.turn = 2;
    state.append({ role: 'user', content: 'hi' });
    const last = state.append({ role: 'assistant', content: 'hello there' });
    state.enqueue({ id: 'q1', content: 'queued one' });
    state.setStatus('running');
    state.lastError = 'something broke';
    state.todos = [{ content: 'Do it', status: 'pending' }];

    const snapshot = state.snapshot();
    expect(snapshot).toEqual({
      session_id: 'sess-1',
      owner: 'default',
      title: 'Plan the trip',
      status: 'running',
      parent_session_id: 'sess-0',
      root_session_id: 'sess-root',
      model: 'demo',
      created_at: '2024-05-01T10:00:00.000Z',
      updated_at: state.updatedAt,
      turn: 2,
      turn_started_at: null,
      message_count: 2,
      queued_messages: 1,
      last_message: { id: last.id, role: 'assistant', content: 'hello there', created_at: last.created_at },
      last_error: 'something broke',
      todos: [{ content: 'Do it', status: 'pending' }],
      ancestor_session_ids: ['sess-root', 'sess-0'],
      depth: 2,
      mode: 'async',
      children: [],
      plan: null,
      waiting: null,
      pending_questions: [],
      tasks: [],
      goals: [],
      loops: [],
      cron_jobs: [],
      last_event_seq: 3,
    });
  });

  it('has a null last_message and zero counts for a fresh session', () => {
    const snapshot = state.snapshot();
    expect(snapshot.last_message).toBeNull();
    expect(snapshot.message_count).toBe(0);
    expect(snapshot.queued_messages).toBe(0);
  });

  it('setStatus changes the status and updated_at', () => {
    const before = state.updatedAt;
    state.setStatus('completed');
    expect(state.snapshot().status).toBe('completed');
    expect(Date.parse(state.snapshot().updated_at)).toBeGreaterThan(Date.parse(before));
  });
});

describe('carry', () => {
  it('round-trips transcript, inbox, turn, model, search attributes, todos and created_at through the constructor', () => {
    state.append({ id: 'u1', role: 'user', content: 'hi' });
    state.append({ role: 'assistant', content: 'hello' });
    state.enqueue({ id: 'q1', content: 'later' });
    state.turn = 3;
    state.model = 'gpt-4o-mini';
    state.searchAttributes = true;
    state.todos = [{ content: 'Task', status: 'in_progress', active_form: 'Tasking' }];

    // Through JSON, as continue-as-new would serialize it.
    const carried = JSON.parse(JSON.stringify(state.carry()));
    const laterClock = fakeClock(Date.parse('2024-06-01T00:00:00.000Z'));
    const next = new SessionState(identity, laterClock, carried);

    expect(next.transcript).toEqual(state.transcript);
    expect(next.inbox).toEqual([{ id: 'q1', content: 'later' }]);
    expect(next.turn).toBe(3);
    expect(next.model).toBe('gpt-4o-mini');
    expect(next.searchAttributes).toBe(true);
    expect(next.todos).toEqual(state.todos);
    expect(next.createdAt).toBe('2024-05-01T10:00:00.000Z');
    expect(next.updatedAt).toBe('2024-06-01T00:00:00.000Z');
    expect(next.carry()).toEqual(carried);
  });

  it('keeps deduplication working across the carry', () => {
    state.append({ id: 'u1', role: 'user', content: 'hi' });
    state.enqueue({ id: 'q1', content: 'later' });
    const next = new SessionState(identity, fakeClock(), JSON.parse(JSON.stringify(state.carry())));
    next.enqueue({ id: 'u1', content: 'hi' });
    next.enqueue({ id: 'q1', content: 'later' });
    expect(next.inbox).toEqual([{ id: 'q1', content: 'later' }]);
    expect(next.messageState('u1')).toBe('handled');
    expect(next.messageState('q1')).toBe('queued');
  });

  it('still knows messages compacted out of the transcript as handled, across several carries, remembering the newest 1,000', () => {
    const handle = (session: SessionState, from: number, count: number) => {
      for (let i = from; i < from + count; i++) {
        session.append({ id: `m${i}`, role: 'user', content: `message ${i}` });
        session.append({ role: 'assistant', content: `answer ${i}` });
      }
    };
    handle(state, 0, 300);
    const second = new SessionState(identity, fakeClock(), JSON.parse(JSON.stringify(state.carry())));
    // 400 entries are carried: messages 100 to 299; 0 to 99 are compacted away, but not forgotten.
    expect(second.transcript.find((entry) => entry.id === 'm99')).toBeUndefined();
    expect(second.messageState('m0')).toBe('handled');
    expect(second.messageState('m99')).toBe('handled');
    second.enqueue({ id: 'm0', content: 'message 0' });
    expect(second.inbox).toEqual([]);
    expect(second.messageState('never-sent')).toBe('unknown');

    handle(second, 300, 1_000);
    const third = new SessionState(identity, fakeClock(), JSON.parse(JSON.stringify(second.carry())));
    // Messages 0 to 1,099 were compacted away; the newest 1,000 of them (100 to 1,099) are remembered.
    expect(third.messageState('m99')).toBe('unknown');
    expect(third.messageState('m100')).toBe('handled');
    expect(third.messageState('m1099')).toBe('handled');
    expect(third.messageState('m1100')).toBe('handled');
    expect(third.carry().forgotten_message_ids).toHaveLength(1_000);
  });
});

describe('compactTranscript', () => {
  const entry = (role: TranscriptEntry['role'], n: number): TranscriptEntry => ({ id: `e${n}`, role, content: `${role} ${n}`, created_at: 't' });

  it('leaves a short transcript alone', () => {
    const short = [entry('user', 0), entry('assistant', 1)];
    expect(compactTranscript(short, 'now')).toBe(short);
  });

  it('keeps the newest entries from a user message on, behind a notice of what was left out', () => {
    const long = Array.from({ length: carriedTranscriptEntries + 10 }, (_, n) => entry(n % 3 === 0 ? 'user' : n % 3 === 1 ? 'assistant' : 'tool', n));
    const kept = compactTranscript(long, 'now');
    expect(kept[0]).toMatchObject({ role: 'notice', created_at: 'now' });
    expect(kept[1]!.role).toBe('user');
    expect(kept.length).toBeLessThanOrEqual(carriedTranscriptEntries + 1);
    expect(kept.at(-1)).toBe(long.at(-1));
    expect(kept[0]!.content).toBe(`${long.length - kept.length + 1} earlier transcript entries were compacted away when the session continued as new; the conversation goes on from here.`);
  });

  it('keeps a turn longer than the allowance whole, from its user message', () => {
    const long = [entry('user', 0), entry('assistant', 1), entry('user', 2), ...Array.from({ length: carriedTranscriptEntries + 5 }, (_, n) => entry('tool', n + 3))];
    const kept = compactTranscript(long, 'now');
    expect(kept[1]).toBe(long[2]);
    expect(kept).toHaveLength(long.length - 2 + 1);
  });

  const sized = (role: TranscriptEntry['role'], n: number, chars: number): TranscriptEntry => ({ ...entry(role, n), content: 'x'.repeat(chars) });
  const charsOf = (entries: TranscriptEntry[]) => entries.slice(1).reduce((sum, kept) => sum + kept.content.length, 0);

  it('carries at most carriedTranscriptBytes bytes, from a user message, however few the entries', () => {
    const long = Array.from({ length: 12 }, (_, n) => sized(n % 2 === 0 ? 'user' : 'assistant', n, 200_000));
    const kept = compactTranscript(long, 'now');
    expect(kept[0]!.role).toBe('notice');
    expect(kept[1]!.role).toBe('user');
    expect(charsOf(kept)).toBeLessThanOrEqual(carriedTranscriptBytes);
    expect(kept.at(-1)).toBe(long.at(-1));
  });

  it('keeps a turn bigger than the allowance from a model answer that fits, never a tool result without its call', () => {
    const turn = [sized('user', 0, 10), sized('assistant', 1, 10), ...Array.from({ length: 12 }, (_, n) => sized('tool', n + 2, 100_000)), sized('assistant', 14, 100), sized('tool', 15, 100_000), sized('assistant', 16, 100)];
    const kept = compactTranscript(turn, 'now');
    expect(kept[1]).toBe(turn[14]);
    expect(kept.slice(1).map((kept) => kept.role)).toEqual(['assistant', 'tool', 'assistant']);
    expect(charsOf(kept)).toBeLessThanOrEqual(carriedTranscriptBytes);
  });

  it('counts bytes, not characters: Chinese text takes three bytes a character', () => {
    const chinese = (role: TranscriptEntry['role'], n: number): TranscriptEntry => ({ ...entry(role, n), content: '会话'.repeat(50_000) });
    const long = Array.from({ length: 12 }, (_, n) => chinese(n % 2 === 0 ? 'user' : 'assistant', n));
    const kept = compactTranscript(long, 'now');
    // 100,000 characters, 300,000 bytes each: three fit in 1 MB, not ten.
    expect(kept.slice(1)).toHaveLength(2);
    expect(utf8Length(JSON.stringify(kept))).toBeLessThan(carriedTranscriptBytes);
  });
});

describe('the state a continue-as-new carries', () => {
  it('carries a queue of messages only while it is small: long messages wait for turns to take them first', () => {
    state.enqueue({ id: 'short', content: 'a short message' });
    expect(state.inboxFitsCarry()).toBe(true);
    state.enqueue({ id: 'long-1', content: '长'.repeat(150_000) });
    expect(state.inboxFitsCarry()).toBe(true);
    state.enqueue({ id: 'long-2', content: '长'.repeat(150_000) });
    expect(state.inboxFitsCarry()).toBe(false);
    state.takeInbox(200_000);
    expect(state.inboxFitsCarry()).toBe(true);
  });

  it('stays within carriedStateBytes of UTF-8 for a session full of long Chinese messages, events and sub-agents', () => {
    const text = (chars: number) => '长'.repeat(chars);
    for (let turn = 0; turn < 30; turn++) {
      state.append({ role: 'user', content: text(150_000) });
      state.append({ role: 'assistant', content: text(150_000) });
    }
    for (let index = 0; index < 300; index++) {
      state.children.push({ sub_session_id: `child-${index}`, title: `Child ${index}`, mode: 'async', status: 'completed', created_at: 't', updated_at: 't', final_message: text(1_000) });
    }
    state.children.push({ sub_session_id: 'running-child', title: 'Still running', mode: 'async', status: 'running', created_at: 't', updated_at: 't', final_message: null });

    const carried = state.carry();
    expect(utf8Length(JSON.stringify(carried))).toBeLessThanOrEqual(carriedStateBytes);
    // The newest closed sub-agents and every running one are kept; the newest conversation too.
    expect(carried.children).toHaveLength(carriedClosedChildren + 1);
    expect(carried.children!.at(-2)!.sub_session_id).toBe('child-299');
    expect(carried.children!.at(-1)!.sub_session_id).toBe('running-child');
    expect(carried.transcript.at(-1)).toBe(state.transcript.at(-1));
    expect(carried.events!.events.length).toBeGreaterThan(0);
    expect(utf8Length(JSON.stringify(carried.events))).toBeLessThanOrEqual(carriedEventBytes + 100);
  });
});
