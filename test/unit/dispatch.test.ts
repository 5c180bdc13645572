import { CancelledFailure } from '@temporalio/common';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SessionStatus, ToolCall } from '../../src/shared/session.js';
import type { TodoItem } from '../../src/shared/tools/todo.js';
import { SessionState } from '../../src/workflows/session-state.js';
import { dispatchToolCall } from '../../src/workflows/tools/dispatch.js';
import { toolHandlers } from '../../src/workflows/tools/handlers.js';
import { SubAgents } from '../../src/workflows/sub-agents.js';

let n = 0;
const clock = { now: () => new Date('2024-05-01T10:00:00.000Z'), newId: () => `id-${n++}` };
const allTools: ReadonlySet<string> = new Set(['todoWrite']);

let state: SessionState;

beforeEach(() => {
  state = new SessionState(
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
    clock,
  );
});

afterEach(() => {
  vi.restoreAllMocks();
});

function context() {
  return {
    state,
    subAgents: new SubAgents(state, { maxDepth: 4, maxChildren: 50 }),
    toolNames: ['todoWrite'],
    reportStatus: (status: SessionStatus) => state.setStatus(status),
    callProceeds: () => {},
    stepKey: 'session/turn-1/round-1/call-0',
  };
}

function call(name: string, args: string): ToolCall {
  return { id: 'call-1', name, arguments: args };
}

const todoArgs = (todos: unknown) => JSON.stringify({ todos });

describe('dispatchToolCall', () => {
  it('refuses an unknown tool with an error that names the available tools', async () => {
    const outcome = await dispatchToolCall(call('readFile', '{}'), allTools, context());
    expect(outcome.is_error).toBe(true);
    expect(outcome.content).toMatch(/^Error: /);
    expect(outcome.content).toContain('Unknown tool "readFile"');
    expect(outcome.content).toContain('Available tools: todoWrite');
  });

  it('refuses a real tool that is not in the allowed set and says none are available', async () => {
    const outcome = await dispatchToolCall(call('todoWrite', todoArgs([])), new Set(), context());
    expect(outcome.is_error).toBe(true);
    expect(outcome.content).toContain('Unknown tool "todoWrite"');
    expect(outcome.content).toContain('Available tools: none');
  });

  it('refuses an allowed name that is not a built-in tool', async () => {
    const outcome = await dispatchToolCall(call('madeUp', '{}'), new Set(['madeUp', 'todoWrite']), context());
    expect(outcome.is_error).toBe(true);
    expect(outcome.content).toContain('Unknown tool "madeUp"');
    expect(outcome.content).toContain('madeUp, todoWrite');
  });

  it('returns malformed JSON as a tool error asking for a JSON object', async () => {
    const outcome = await dispatchToolCall(call('todoWrite', '{"todos": ['), allTools, context());
    expect(outcome.is_error).toBe(true);
    expect(outcome.content).toContain('Arguments are not valid JSON');
    expect(outcome.content).toContain('Send a JSON object');
    expect(state.todos).toEqual([]);
  });

  it('returns a schema violation as a tool error that names the offending path', async () => {
    const outcome = await dispatchToolCall(call('todoWrite', todoArgs([{ content: 'x', status: 'bogus' }])), allTools, context());
    expect(outcome.is_error).toBe(true);
    expect(outcome.content).toContain('Invalid arguments for todoWrite');
    expect(outcome.content).toContain('todos[0].status');
    expect(state.todos).toEqual([]);
  });

  it('refuses arguments that are valid JSON but not an object', async () => {
    const outcome = await dispatchToolCall(call('todoWrite', '[1,2]'), allTools, context());
    expect(outcome.is_error).toBe(true);
    expect(outcome.content).toContain('Invalid arguments for todoWrite');
  });

  it('runs a valid todoWrite, reports the counts and replaces the session todos', async () => {
    const todos: TodoItem[] = [
      { content: 'Read', status: 'completed' },
      { content: 'Write', status: 'in_progress', active_form: 'Writing' },
      { content: 'Ship', status: 'pending' },
    ];
    const outcome = await dispatchToolCall(call('todoWrite', todoArgs(todos)), allTools, context());
    expect(outcome).toEqual({
      content: 'Todo list updated: 3 item(s), 1 completed, 1 in progress, 1 pending.',
      is_error: false,
    });
    expect(state.todos).toEqual(todos);
  });

  it('stores todo content trimmed, as the schema normalizes it', async () => {
    await dispatchToolCall(call('todoWrite', todoArgs([{ content: '  Trim me  ', status: 'pending' }])), allTools, context());
    expect(state.todos).toEqual([{ content: 'Trim me', status: 'pending' }]);
  });

  it('refuses a second in_progress item and keeps the list unchanged', async () => {
    const before: TodoItem[] = [{ content: 'Existing', status: 'pending' }];
    state.todos = before;
    const outcome = await dispatchToolCall(
      call(
        'todoWrite',
        todoArgs([
          { content: 'A', status: 'in_progress' },
          { content: 'B', status: 'in_progress' },
        ]),
      ),
      allTools,
      context(),
    );
    expect(outcome.is_error).toBe(true);
    expect(outcome.content).toContain('At most one todo may be in_progress, got 2');
    expect(outcome.content).toContain('The list was not changed');
    expect(state.todos).toEqual([{ content: 'Existing', status: 'pending' }]);
  });

  it('treats an empty or blank arguments string as {} and so clears the list', async () => {
    state.todos = [{ content: 'Old', status: 'pending' }];
    const outcome = await dispatchToolCall(call('todoWrite', '  '), allTools, context());
    expect(outcome.is_error).toBe(false);
    expect(outcome.content).toContain('0 item(s)');
    expect(state.todos).toEqual([]);

    state.todos = [{ content: 'Old', status: 'pending' }];
    expect((await dispatchToolCall(call('todoWrite', ''), allTools, context())).is_error).toBe(false);
    expect(state.todos).toEqual([]);
  });

  it('truncates a very long error to 100,000 characters and says how much was cut', async () => {
    const longName = 'x'.repeat(150_000);
    const outcome = await dispatchToolCall(call(longName, '{}'), allTools, context());
    expect(outcome.is_error).toBe(true);
    const [kept, note] = outcome.content.split('\n[truncated: ');
    expect(kept).toHaveLength(100_000);
    const fullLength = `Error: Unknown tool "${longName}". Available tools: todoWrite.`.length;
    expect(note).toBe(`${fullLength - 100_000} more characters]`);
  });

  it('truncates a very long successful result', async () => {
    vi.spyOn(toolHandlers, 'todoWrite').mockReturnValue('y'.repeat(100_010));
    const outcome = await dispatchToolCall(call('todoWrite', '{}'), allTools, context());
    expect(outcome.is_error).toBe(false);
    expect(outcome.content).toBe(`${'y'.repeat(100_000)}\n[truncated: 10 more characters]`);
  });

  it('leaves a result of exactly 100,000 characters untouched', async () => {
    vi.spyOn(toolHandlers, 'todoWrite').mockReturnValue('z'.repeat(100_000));
    const outcome = await dispatchToolCall(call('todoWrite', '{}'), allTools, context());
    expect(outcome.content).toBe('z'.repeat(100_000));
  });

  it('passes the call id to the handler with the session state', async () => {
    const spy = vi.spyOn(toolHandlers, 'todoWrite').mockReturnValue('ok');
    await dispatchToolCall({ id: 'call-42', name: 'todoWrite', arguments: '{}' }, allTools, context());
    expect(spy).toHaveBeenCalledWith({ todos: [] }, expect.objectContaining({ state, toolCallId: 'call-42' }));
  });

  it('turns an unexpected handler failure into a tool error naming the tool and the cause', async () => {
    vi.spyOn(toolHandlers, 'todoWrite').mockImplementation(() => {
      throw new Error('disk full', { cause: new Error('ENOSPC') });
    });
    const outcome = await dispatchToolCall(call('todoWrite', '{}'), allTools, context());
    expect(outcome).toEqual({ content: 'Error: Tool todoWrite failed: disk full: ENOSPC', is_error: true });
  });

  it('lets a cancellation from the handler propagate instead of returning it to the model', async () => {
    vi.spyOn(toolHandlers, 'todoWrite').mockImplementation(async () => {
      throw new CancelledFailure('cancelled');
    });
    await expect(dispatchToolCall(call('todoWrite', '{}'), allTools, context())).rejects.toBeInstanceOf(CancelledFailure);
  });
});
