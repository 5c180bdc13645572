import { describe, expect, it } from 'vitest';
import { maxTasks, taskCreate, taskUpdate, type TaskBoardOperation, type TaskBoardRequest } from '../../src/shared/tools/task-board.js';
import { TaskBoard, type BoardChange } from '../../src/workflows/task-board.js';
import { SessionState } from '../../src/workflows/session-state.js';
import { SubAgents } from '../../src/workflows/sub-agents.js';
import { dispatchToolCall } from '../../src/workflows/tools/dispatch.js';

const now = () => new Date('2026-01-01T00:00:00Z');

function board() {
  const changes: BoardChange[] = [];
  const tasks = new TaskBoard(now, undefined, (change) => changes.push(change));
  const run = (request: TaskBoardOperation) => {
    const reply = tasks.apply({ session_id: 's1', ...request } as TaskBoardRequest);
    if (!reply.ok) throw new Error(reply.error);
    return reply.result as Record<string, unknown>;
  };
  const create = (subject: string) =>
    run({ op: 'create', args: taskCreate.input.parse({ subject }) }) as { task: { id: string; subject: string } };
  const update = (args: Record<string, unknown>) =>
    run({ op: 'update', args: taskUpdate.input.parse(args) }) as {
      success: boolean;
      task_id: string;
      updated_fields: string[];
      status_change?: unknown;
      error?: string;
    };
  return { tasks, changes, run, create, update };
}

describe('the task board', () => {
  it('creates tasks with increasing ids and returns their id and subject', () => {
    const { create, run, changes } = board();
    expect(create('Write the parser')).toEqual({ task: { id: '1', subject: 'Write the parser' } });
    expect(create('Test the parser').task.id).toBe('2');
    expect(run({ op: 'get', args: { task_id: '1' } })).toEqual({
      task: {
        id: '1',
        subject: 'Write the parser',
        description: '',
        status: 'pending',
        owner: null,
        metadata: {},
        blocks: [],
        blockedBy: [],
      },
    });
    expect(run({ op: 'get', args: { task_id: '9' } })).toEqual({ task: null });
    expect(changes.map((change) => change.task_id)).toEqual(['1', '2']);
  });

  it('reports the fields an update changed and the status change', () => {
    const { create, update } = board();
    create('Parser');
    expect(
      update({
        task_id: '1',
        status: 'in_progress',
        owner: 'agent-a',
        subject: 'Parser',
        description: 'All of it',
        metadata: { priority: 1 },
      }),
    ).toEqual({
      success: true,
      task_id: '1',
      updated_fields: ['description', 'owner', 'metadata', 'status'],
      status_change: { from: 'pending', to: 'in_progress' },
    });
    expect(update({ task_id: '1', status: 'in_progress' })).toEqual({ success: true, task_id: '1', updated_fields: [] });
    expect(update({ task_id: '1', metadata: { priority: null, area: 'io' }, owner: '' })).toMatchObject({
      updated_fields: ['owner', 'metadata'],
    });
  });

  it('refuses unknown tasks, self-blocking and cycles, changing nothing', () => {
    const { create, update, run } = board();
    for (const subject of ['A', 'B', 'C']) create(subject);
    expect(update({ task_id: '7', status: 'completed' })).toEqual({
      success: false,
      task_id: '7',
      updated_fields: [],
      error: 'Task 7 not found.',
    });
    expect(update({ task_id: '1', addBlocks: ['1'] }).error).toBe('Task 1 cannot block itself.');
    expect(update({ task_id: '1', addBlocks: ['2', '9'], status: 'completed' }).error).toBe('Task 9 not found; nothing was changed.');
    expect(update({ task_id: '1', addBlocks: ['2'] })).toMatchObject({ success: true, updated_fields: ['blocks'] });
    expect(update({ task_id: '3', addBlockedBy: ['2'] })).toMatchObject({ success: true, updated_fields: ['blockedBy'] });
    const cycle = update({ task_id: '3', addBlocks: ['1'], status: 'completed' });
    expect(cycle.success).toBe(false);
    expect(cycle.error).toBe('These dependencies would make a cycle (3 → 1 → 2 → 3); nothing was changed.');
    expect(run({ op: 'get', args: { task_id: '3' } })).toMatchObject({ task: { status: 'pending', blocks: [], blockedBy: ['2'] } });
  });

  it('lists only blockers not yet completed, and deleting a task removes it and its links', () => {
    const { create, update, run } = board();
    for (const subject of ['Design', 'Build', 'Ship']) create(subject);
    update({ task_id: '3', addBlockedBy: ['1', '2'] });
    update({ task_id: '1', status: 'completed' });
    expect(run({ op: 'list' })).toEqual({
      tasks: [
        { id: '1', subject: 'Design', status: 'completed', owner: null, blockedBy: [] },
        { id: '2', subject: 'Build', status: 'pending', owner: null, blockedBy: [] },
        { id: '3', subject: 'Ship', status: 'pending', owner: null, blockedBy: ['2'] },
      ],
    });
    expect(update({ task_id: '2', status: 'deleted' })).toEqual({
      success: true,
      task_id: '2',
      updated_fields: ['status'],
      status_change: { from: 'pending', to: 'deleted' },
    });
    expect((run({ op: 'list' }).tasks as { id: string }[]).map((task) => task.id)).toEqual(['1', '3']);
    expect(run({ op: 'get', args: { task_id: '3' } })).toMatchObject({ task: { blockedBy: ['1'] } });
  });

  it(`refuses more than ${maxTasks} tasks`, () => {
    const { tasks } = board();
    for (let i = 0; i < maxTasks; i++) tasks.apply({ session_id: 's', op: 'create', args: { subject: `t${i}`, description: '' } });
    expect(tasks.apply({ session_id: 's', op: 'create', args: { subject: 'one more', description: '' } })).toEqual({
      ok: false,
      error: `The board already holds ${maxTasks} tasks, the most it may; delete finished ones first.`,
    });
  });

  it('keeps its tasks and numbering across continue-as-new', () => {
    const first = board();
    first.create('Kept');
    const next = new TaskBoard(now, first.tasks.carry());
    expect(next.apply({ session_id: 's', op: 'create', args: { subject: 'After', description: '' } })).toEqual({
      ok: true,
      result: { task: { id: '2', subject: 'After' } },
    });
  });
});

describe('task board tool calls at the root session', () => {
  it('answers a table of good and bad calls with exact results', async () => {
    const state = new SessionState(
      {
        session_id: 'root',
        owner: 'default',
        title: 't',
        parent_session_id: null,
        root_session_id: 'root',
        ancestor_session_ids: [],
        depth: 0,
        mode: null,
      },
      { now, newId: () => 'id' },
    );
    const names = ['TaskCreate', 'TaskGet', 'TaskUpdate', 'TaskList'];
    const context = {
      state,
      subAgents: new SubAgents(state, { maxDepth: 4, maxChildren: 50 }),
      toolNames: names,
      reportStatus: () => {},
      callProceeds: () => {},
      stepKey: 'session/turn-1/round-1/call-0',
    };
    const table: [string, unknown, string, boolean][] = [
      ['TaskCreate', { subject: 'Design', metadata: { area: 'ui' } }, '{"task":{"id":"1","subject":"Design"}}', false],
      ['TaskCreate', { subject: 'Build' }, '{"task":{"id":"2","subject":"Build"}}', false],
      [
        'TaskUpdate',
        { task_id: '2', addBlockedBy: ['1'], status: 'in_progress' },
        '{"success":true,"task_id":"2","updated_fields":["blockedBy","status"],"status_change":{"from":"pending","to":"in_progress"}}',
        false,
      ],
      [
        'TaskUpdate',
        { task_id: '1', addBlockedBy: ['2'] },
        '{"success":false,"task_id":"1","updated_fields":[],"error":"These dependencies would make a cycle (2 → 1 → 2); nothing was changed."}',
        false,
      ],
      [
        'TaskList',
        {},
        '{"tasks":[{"id":"1","subject":"Design","status":"pending","owner":null,"blockedBy":[]},{"id":"2","subject":"Build","status":"in_progress","owner":null,"blockedBy":["1"]}]}',
        false,
      ],
      [
        'TaskGet',
        { task_id: '1' },
        '{"task":{"id":"1","subject":"Design","description":"","status":"pending","owner":null,"metadata":{"area":"ui"},"blocks":["2"],"blockedBy":[]}}',
        false,
      ],
      ['TaskGet', { task_id: '42' }, '{"task":null}', false],
      ['TaskCreate', { subject: '  ' }, 'Error: Invalid arguments for TaskCreate', true],
      ['TaskUpdate', { task_id: '1', status: 'done' }, 'Error: Invalid arguments for TaskUpdate', true],
      ['TaskGet', {}, 'Error: Invalid arguments for TaskGet', true],
    ];
    for (const [name, args, expected, isError] of table) {
      const outcome = await dispatchToolCall({ id: 'c', name, arguments: JSON.stringify(args) }, new Set(names), context);
      expect(outcome.is_error, `${name} ${JSON.stringify(args)}`).toBe(isError);
      if (isError) expect(outcome.content.startsWith(expected)).toBe(true);
      else expect(outcome.content).toBe(expected);
    }
    expect(state.snapshot().tasks.map((task) => task.id)).toEqual(['1', '2']);
    expect(state.events.page().events.filter((event) => event.type === 'task_updated')).toHaveLength(3);
  });
});
