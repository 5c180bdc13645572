import { emptyTotals } from '../../src/shared/usage.js';
import { beforeEach, describe, expect, it } from 'vitest';
import type { HostToolEntry } from '../../src/shared/host-tools.js';
import { utf8Length } from '../../src/shared/utf8.js';
import { carriedEventBytes } from '../../src/workflows/event-log.js';
import { environmentFor } from '../../src/workflows/deployment-settings.js';
import { carriedClosedChildren, carriedStateBytes, SessionState } from '../../src/workflows/session-state.js';
import type { SessionIdentity } from '../../src/workflows/session-identity.js';
import type { StateClock } from '../../src/workflows/state-clock.js';

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
    expect(state.transcript.entries).toEqual([]);
    expect(state.inbox).toEqual([]);
    expect(state.turn).toBe(0);
    expect(state.todos).toEqual([]);
    expect(state.lastError).toBeNull();
    expect(state.createdAt).toBe('2024-05-01T10:00:00.000Z');
    expect(state.updatedAt).toBe('2024-05-01T10:00:00.000Z');
  });
});

describe('the session environment', () => {
  const hostTool: HostToolEntry = {
    name: 'lookup_order',
    description: 'Look up an order.',
    parameters: { type: 'object', properties: { order_id: { type: 'string' } } },
    needs_approval: false,
    remote: false,
    start_to_close_timeout_ms: 300_000,
    schedule_to_start_timeout_ms: 60_000,
    retry: { maximum_attempts: 3, initial_interval_ms: 1_000, backoff_coefficient: 2, maximum_interval_ms: 30_000 },
  };
  const environment = {
    model: 'gpt-big',
    provider: 'openai-compatible' as const,
    search_attributes: true,
    unavailable_tools: ['webSearch'],
    question_timeout_seconds: 600,
    loop_min_interval_seconds: 30,
    loop_max_age_seconds: 86_400,
    cron_timezone: 'Europe/Paris',
    host_tools: { digest: 'd1', tools: [hostTool] },
    tool_search: { max_host_tools: 40, max_schema_tokens: 20_000 },
    skills: true as const,
  };

  it('takes in every setting the worker describes', () => {
    state.applyEnvironment(environment);
    expect(state.settings).toEqual({
      model: 'gpt-big',
      searchAttributes: true,
      unavailableTools: ['webSearch'],
      questionTimeoutSeconds: 600,
      loopLimits: { minIntervalSeconds: 30, maxAgeSeconds: 86_400 },
      cronTimezone: 'Europe/Paris',
      hostTools: { digest: 'd1', tools: [hostTool] },
      toolSearch: { max_host_tools: 40, max_schema_tokens: 20_000 },
      skills: true,
    });
  });

  it('hands a sub-agent the same settings, with the model it asks for or else its parent’s', () => {
    state.applyEnvironment(environment);
    expect(environmentFor(state.settings)).toEqual(environment);
    expect(environmentFor(state.settings, 'demo')).toEqual({ ...environment, model: 'demo', provider: 'demo' });
    const child = new SessionState({ ...identity, session_id: 'sess-2' }, fakeClock());
    child.applyEnvironment(environmentFor(state.settings, 'gpt-small'));
    expect(environmentFor(child.settings)).toEqual({ ...environment, model: 'gpt-small' });
  });

  it('carries every setting across continue-as-new, in the fields running sessions carry', () => {
    state.applyEnvironment(environment);
    const carried = JSON.parse(JSON.stringify(state.carry()));
    expect(carried).toMatchObject({
      model: 'gpt-big',
      search_attributes: true,
      unavailable_tools: ['webSearch'],
      question_timeout_seconds: 600,
      cron_timezone: 'Europe/Paris',
      loop_limits: { min_interval_seconds: 30, max_age_seconds: 86_400 },
      host_tools: { digest: 'd1', tools: [hostTool] },
      tool_search: { max_host_tools: 40, max_schema_tokens: 20_000 },
      skills: true,
    });
    expect(new SessionState(identity, fakeClock(), carried).settings).toEqual(state.settings);
  });

  it('keeps the defaults for what an older worker did not describe', () => {
    state.applyEnvironment({ model: 'demo', provider: 'demo', search_attributes: false });
    expect(environmentFor(state.settings)).toEqual({
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
    state.enqueue({ id: 'm1', content: 'hello', source: 'user' });
    expect(state.inbox).toEqual([{ id: 'm1', content: 'hello', source: 'user' }]);
    expect(state.messageState('m1')).toBe('queued');
  });

  it('gives a message without an id a fresh id from the clock', () => {
    state.enqueue({ content: 'first', source: 'user' });
    state.enqueue({ content: 'second', source: 'user' });
    expect(state.inbox).toEqual([
      { id: 'id-0', content: 'first', source: 'user' },
      { id: 'id-1', content: 'second', source: 'user' },
    ]);
  });

  it('ignores a second message with an id that is already queued', () => {
    state.enqueue({ id: 'm1', content: 'hello', source: 'user' });
    state.enqueue({ id: 'm1', content: 'hello again', source: 'user' });
    expect(state.inbox).toEqual([{ id: 'm1', content: 'hello', source: 'user' }]);
  });

  it('ignores a message whose id was already handled into the transcript', () => {
    state.enqueue({ id: 'm1', content: 'hello', source: 'user' });
    for (const message of state.takeInbox()) state.append({ id: message.id, role: 'user', content: message.content });
    state.enqueue({ id: 'm1', content: 'hello', source: 'user' });
    expect(state.inbox).toEqual([]);
    expect(state.transcript.entries.filter((entry) => entry.role === 'user')).toHaveLength(1);
  });

  it('does not touch updated_at when a duplicate is ignored', () => {
    state.enqueue({ id: 'm1', content: 'hello', source: 'user' });
    const after = state.updatedAt;
    state.enqueue({ id: 'm1', content: 'hello', source: 'user' });
    expect(state.updatedAt).toBe(after);
  });

  it('moves updated_at forward when a message is queued', () => {
    const before = state.updatedAt;
    state.enqueue({ id: 'm1', content: 'hello', source: 'user' });
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
    state.enqueue({ id: 'a', content: 'one', source: 'user' });
    state.enqueue({ id: 'b', content: 'two', source: 'user' });
    const taken = state.takeInbox();
    expect(taken.map((message) => message.id)).toEqual(['a', 'b']);
    expect(state.inbox).toEqual([]);
    expect(state.takeInbox()).toEqual([]);
  });

  it('takes messages up to the batch size, at least one, and leaves the rest queued in order', () => {
    for (const [id, length] of [
      ['a', 60],
      ['b', 50],
      ['c', 10],
      ['d', 200],
    ] as const)
      state.enqueue({ id, content: 'x'.repeat(length), source: 'user' });
    expect(state.takeInbox(100).map((message) => message.id)).toEqual(['a']);
    expect(state.snapshot().queued_messages).toBe(3);
    expect(state.messageState('b')).toBe('queued');
    expect(state.takeInbox(100).map((message) => message.id)).toEqual(['b', 'c']);
    expect(state.takeInbox(100).map((message) => message.id)).toEqual(['d']);
    expect(state.inbox).toEqual([]);
  });

  it('takes everything without a batch size (runs from before the bound)', () => {
    state.enqueue({ id: 'b', content: 'x'.repeat(80), source: 'user' });
    state.enqueue({ id: 'c', content: 'x'.repeat(80), source: 'user' });
    expect(state.takeInbox().map((message) => message.id)).toEqual(['b', 'c']);
  });
});

describe('where queued messages come from', () => {
  it('drops a goal continuation queued with any other message (the turn makes it again), and names the loop whose firing a turn takes', () => {
    state.enqueue({ id: 'goal-continuation:1', content: 'keep going', source: 'goal' });
    state.enqueue({ id: 'loop:loop-1:2', content: 'fire', source: 'loop' });
    expect(state.takeInbox().map((message) => message.id)).toEqual(['loop:loop-1:2']);
    expect(state.runningLoopId).toBe('loop-1');
    expect(state.inbox).toEqual([]);
    state.enqueue({ id: 'goal-continuation:2', content: 'keep going', source: 'goal' });
    expect(state.takeInbox().map((message) => message.id)).toEqual(['goal-continuation:2']);
    expect(state.runningLoopId).toBeNull();
  });

  it('reads the source of a message carried by a run from before sources were kept from its id', () => {
    const older = [
      { id: 'm1', content: 'from a person' },
      { id: 'from-parent:sess-0/turn-1/round-1/call-0', content: 'from the parent' },
      { id: 'goal-continuation:3', content: 'a goal continuation' },
      { id: 'loop:loop-1:2', content: 'a loop firing' },
      { id: 'cron:cron-1:1', content: 'a cron firing' },
      { id: 'sub-agent-finished:child-1', content: 'a sub-agent notice' },
    ];
    const carried = {
      ...JSON.parse(JSON.stringify(state.carry())),
      inbox: [...older, { id: 'loop:loop-2:1', content: 'newer', source: 'loop' }],
    };
    const next = new SessionState(identity, fakeClock(), carried);
    expect(next.inbox.map((message) => message.source)).toEqual(['user', 'user', 'goal', 'loop', 'cron', 'sub-agent', 'loop']);
    expect(next.carry().inbox).toEqual(next.inbox);
  });
});

describe('append', () => {
  it('assigns an id and created_at from the clock and pushes the entry', () => {
    const entry = state.append({ role: 'assistant', content: 'done', turn: 1 });
    expect(entry).toEqual({ role: 'assistant', content: 'done', turn: 1, id: 'id-0', created_at: '2024-05-01T10:00:01.000Z' });
    expect(state.transcript.entries).toEqual([entry]);
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

describe('snapshot', () => {
  it('reports identity, status, counts and the last message', () => {
    state.settings.model = 'demo';
    state.turn = 2;
    state.append({ role: 'user', content: 'hi' });
    const last = state.append({ role: 'assistant', content: 'hello there' });
    state.enqueue({ id: 'q1', content: 'queued one', source: 'user' });
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
      work_mode: 'execute',
      profile: 'all',
      // A sub-agent: its own usage, no tree totals (its root keeps them).
      usage: { session: emptyTotals(), budget_stop: null },
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
    state.enqueue({ id: 'q1', content: 'later', source: 'user' });
    state.turn = 3;
    state.settings.model = 'gpt-4o-mini';
    state.settings.searchAttributes = true;
    state.todos = [{ content: 'Task', status: 'in_progress', active_form: 'Tasking' }];

    // Through JSON, as continue-as-new would serialize it.
    const carried = JSON.parse(JSON.stringify(state.carry()));
    const laterClock = fakeClock(Date.parse('2024-06-01T00:00:00.000Z'));
    const next = new SessionState(identity, laterClock, carried);

    expect(next.transcript.entries).toEqual(state.transcript.entries);
    expect(next.inbox).toEqual([{ id: 'q1', content: 'later', source: 'user' }]);
    expect(next.turn).toBe(3);
    expect(next.settings.model).toBe('gpt-4o-mini');
    expect(next.settings.searchAttributes).toBe(true);
    expect(next.todos).toEqual(state.todos);
    expect(next.createdAt).toBe('2024-05-01T10:00:00.000Z');
    expect(next.updatedAt).toBe('2024-06-01T00:00:00.000Z');
    expect(next.carry()).toEqual(carried);
  });

  it('keeps deduplication working across the carry', () => {
    state.append({ id: 'u1', role: 'user', content: 'hi' });
    state.enqueue({ id: 'q1', content: 'later', source: 'user' });
    const next = new SessionState(identity, fakeClock(), JSON.parse(JSON.stringify(state.carry())));
    next.enqueue({ id: 'u1', content: 'hi', source: 'user' });
    next.enqueue({ id: 'q1', content: 'later', source: 'user' });
    expect(next.inbox).toEqual([{ id: 'q1', content: 'later', source: 'user' }]);
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
    expect(second.transcript.entries.find((entry) => entry.id === 'm99')).toBeUndefined();
    expect(second.messageState('m0')).toBe('handled');
    expect(second.messageState('m99')).toBe('handled');
    second.enqueue({ id: 'm0', content: 'message 0', source: 'user' });
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

describe('the state a continue-as-new carries', () => {
  it('carries a queue of messages only while it is small: long messages wait for turns to take them first', () => {
    state.enqueue({ id: 'short', content: 'a short message', source: 'user' });
    expect(state.inboxFitsCarry()).toBe(true);
    state.enqueue({ id: 'long-1', content: '长'.repeat(150_000), source: 'user' });
    expect(state.inboxFitsCarry()).toBe(true);
    state.enqueue({ id: 'long-2', content: '长'.repeat(150_000), source: 'user' });
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
      state.children.push({
        sub_session_id: `child-${index}`,
        title: `Child ${index}`,
        mode: 'async',
        status: 'completed',
        created_at: 't',
        updated_at: 't',
        final_message: text(1_000),
      });
    }
    state.children.push({
      sub_session_id: 'running-child',
      title: 'Still running',
      mode: 'async',
      status: 'running',
      created_at: 't',
      updated_at: 't',
      final_message: null,
    });

    const carried = state.carry();
    expect(utf8Length(JSON.stringify(carried))).toBeLessThanOrEqual(carriedStateBytes);
    // The newest closed sub-agents and every running one are kept; the newest conversation too.
    expect(carried.children).toHaveLength(carriedClosedChildren + 1);
    expect(carried.children!.at(-2)!.sub_session_id).toBe('child-299');
    expect(carried.children!.at(-1)!.sub_session_id).toBe('running-child');
    expect(carried.transcript.at(-1)).toBe(state.transcript.entries.at(-1));
    expect(carried.events!.events.length).toBeGreaterThan(0);
    expect(utf8Length(JSON.stringify(carried.events))).toBeLessThanOrEqual(carriedEventBytes + 100);
  });
});
