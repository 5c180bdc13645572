import { describe, expect, it } from 'vitest';
import { EventLog, shorten } from '../../src/workflows/event-log.js';
import { SessionState } from '../../src/workflows/session-state.js';

const now = () => new Date('2026-01-01T00:00:00Z');

describe('EventLog', () => {
  it('numbers events from 1 and pages after a seq', () => {
    const log = new EventLog('s', now);
    for (let i = 0; i < 5; i++) log.emit({ type: 'notice', content: `n${i}` });
    const page = log.page({ after: 2, limit: 2 });
    expect(page.events.map((event) => event.seq)).toEqual([3, 4]);
    expect(page).toMatchObject({ last_seq: 5, missed: 0 });
    expect(page.events[0]).toMatchObject({ session_id: 's', at: '2026-01-01T00:00:00.000Z', type: 'notice', content: 'n2' });
    expect(log.page({ after: 5 }).events).toEqual([]);
  });

  it('keeps only the newest events and tells a late reader how many it missed', () => {
    const log = new EventLog('s', now, undefined, 3);
    for (let i = 0; i < 10; i++) log.emit({ type: 'notice', content: `n${i}` });
    expect(log.page().events.map((event) => event.seq)).toEqual([8, 9, 10]);
    expect(log.page({ after: 0 }).missed).toBe(7);
    expect(log.page({ after: 8 })).toMatchObject({ missed: 0, events: [{ seq: 9 }, { seq: 10 }] });
  });

  it('ends a page before 500,000 characters of events, and a reader that goes on to last_seq gets every event', () => {
    const log = new EventLog('s', now);
    for (let i = 0; i < 500; i++) log.emit({ type: 'message', role: 'assistant', content: `${i} `.padEnd(4_000, '語') });
    const first = log.page();
    expect(first.events.length).toBeGreaterThan(100);
    expect(first.events.length).toBeLessThan(125);
    expect(JSON.stringify(first.events).length).toBeLessThanOrEqual(500_000);
    const seen: number[] = [];
    for (let after = 0; after < first.last_seq;) {
      const page = log.page({ after });
      seen.push(...page.events.map((event) => event.seq));
      after = page.events.at(-1)!.seq;
    }
    expect(seen).toEqual(Array.from({ length: 500 }, (_, index) => index + 1));
  });

  it('continues numbering after being carried across continue-as-new', () => {
    const log = new EventLog('s', now);
    for (let i = 0; i < 3; i++) log.emit({ type: 'notice', content: `n${i}` });
    const next = new EventLog('s', now, log.carry());
    expect(next.emit({ type: 'notice', content: 'after' }).seq).toBe(4);
    expect(next.page({ after: 2 }).events.map((event) => event.seq)).toEqual([3, 4]);
  });

  it('shortens long texts and marks them', () => {
    expect(shorten('abcdef', 3)).toEqual({ text: 'abc…', truncated: true });
    expect(shorten('abc', 3)).toEqual({ text: 'abc' });
  });
});

describe('session events', () => {
  it('emits messages, tool calls, shortened results, todos and status changes', () => {
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
      { now, newId: () => 'id' },
    );
    state.setStatus('running');
    state.append({ role: 'user', content: 'hi' });
    state.append({ role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'todoWrite', arguments: '{}' }] });
    state.setTodos([{ content: 'x', status: 'pending' }]);
    state.toolFinished({ id: 'c1', name: 'todoWrite' }, { content: 'y'.repeat(5_000), is_error: false });
    state.append({ role: 'tool', content: 'y'.repeat(5_000), tool_call_id: 'c1', name: 'todoWrite' }, { emit: false });
    state.setStatus('running');
    const events = state.events.page().events;
    expect(events.map((event) => event.type)).toEqual(['status_changed', 'message', 'tool_call', 'todos_updated', 'tool_result']);
    const result = events[4] as Extract<(typeof events)[number], { type: 'tool_result' }>;
    expect(result.truncated).toBe(true);
    expect(result.content.length).toBeLessThanOrEqual(1_001);
  });
});
