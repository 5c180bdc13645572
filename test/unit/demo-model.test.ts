import { describe, expect, it } from 'vitest';
import { demoReply } from '../../src/activities/demo-model.js';
import type { TranscriptEntry } from '../../src/shared/session.js';
import { todoWrite } from '../../src/shared/tools/todo.js';
import { askUser } from '../../src/shared/tools/ask-user.js';
import { planWrite } from '../../src/shared/tools/plan.js';

const tools = ['todoWrite'];
let n = 0;

function entry(role: TranscriptEntry['role'], content: string, extra: Partial<TranscriptEntry> = {}): TranscriptEntry {
  return { id: `e${n++}`, role, content, created_at: '2024-05-01T10:00:00.000Z', ...extra };
}

describe('demoReply', () => {
  it('answers a fresh request with one todoWrite call whose arguments satisfy the todoWrite schema', () => {
    const transcript = [entry('user', 'Plan a picnic for Saturday')];
    const reply = demoReply(transcript, tools);

    expect(reply.content).toContain('demo model');
    expect(reply.tool_calls).toHaveLength(1);
    const [call] = reply.tool_calls;
    expect(call!.name).toBe('todoWrite');
    expect(call!.id).toBe('demo_1_0');

    const parsed = todoWrite.input.safeParse(JSON.parse(call!.arguments));
    expect(parsed.success).toBe(true);
    const todos = parsed.data!.todos;
    expect(todos.length).toBeGreaterThan(0);
    expect(todos.filter((todo) => todo.status === 'in_progress')).toHaveLength(1);
    expect(todos.some((todo) => todo.content.includes('Plan a picnic for Saturday'))).toBe(true);
  });

  it('asks a valid question first when the request says "ask", then plans, then answers with the user\'s choice', () => {
    const asking = ['askUser', 'todoWrite'];
    const transcript = [entry('user', 'Plan a picnic and ask me what I prefer')];
    const first = demoReply(transcript, asking);
    expect(first.tool_calls.map((call) => call.name)).toEqual(['askUser']);
    expect(askUser.input.safeParse(JSON.parse(first.tool_calls[0]!.arguments)).success).toBe(true);

    transcript.push(entry('assistant', first.content!, { tool_calls: first.tool_calls }));
    transcript.push(
      entry('tool', 'User has answered your questions: "How detailed should my answer be?"="Step by step".', {
        tool_call_id: first.tool_calls[0]!.id,
        name: 'askUser',
      }),
    );
    const second = demoReply(transcript, asking);
    expect(second.tool_calls.map((call) => call.name)).toEqual(['todoWrite']);

    transcript.push(entry('assistant', second.content!, { tool_calls: second.tool_calls }));
    transcript.push(entry('tool', 'Todo list updated', { tool_call_id: second.tool_calls[0]!.id, name: 'todoWrite' }));
    const third = demoReply(transcript, asking);
    expect(third.tool_calls).toEqual([]);
    expect(third.content).toContain('"Step by step"');
    expect(demoReply([entry('user', 'Plan a picnic and ask me')], ['todoWrite']).tool_calls[0]!.name).toBe('todoWrite');
  });

  it('writes a plan with planWrite beside the todo list when the session has planWrite', () => {
    const reply = demoReply([entry('user', 'Plan a picnic')], ['todoWrite', 'planWrite']);
    expect(reply.tool_calls.map((call) => call.name)).toEqual(['todoWrite', 'planWrite']);
    const plan = planWrite.input.parse(JSON.parse(reply.tool_calls[1]!.arguments));
    expect(plan.title).toBe('Plan: Plan a picnic');
    expect(plan.content).toContain('# Plan');
  });

  it('keeps the plan valid for a very long, multi-line request', () => {
    const request = `${'word '.repeat(400)}\n\n${'more '.repeat(400)}`;
    const reply = demoReply([entry('user', request)], tools);
    const parsed = todoWrite.input.safeParse(JSON.parse(reply.tool_calls[0]!.arguments));
    expect(parsed.success).toBe(true);
    for (const todo of parsed.data!.todos) expect(todo.content).not.toContain('\n');
  });

  it('answers without tool calls after the tool result, saying it is the demo model and echoing the result', () => {
    const transcript = [
      entry('user', 'Plan a picnic'),
      entry('assistant', '(demo model) Let me plan this first.', {
        tool_calls: [{ id: 'demo_1_0', name: 'todoWrite', arguments: '{}' }],
      }),
      entry('tool', 'Todo list updated: 3 item(s)', { tool_call_id: 'demo_1_0', name: 'todoWrite' }),
    ];
    const reply = demoReply(transcript, tools);
    expect(reply.tool_calls).toEqual([]);
    expect(reply.content).toContain('demo model');
    expect(reply.content).toContain('You asked: "Plan a picnic"');
    expect(reply.content).toContain('todoWrite answered: Todo list updated: 3 item(s)');
  });

  it('says a tool returned an error when the tool entry is an error', () => {
    const transcript = [
      entry('user', 'Plan'),
      entry('assistant', '', { tool_calls: [{ id: 'c', name: 'todoWrite', arguments: 'x' }] }),
      entry('tool', 'Error: bad JSON', { tool_call_id: 'c', name: 'todoWrite', is_error: true }),
    ];
    expect(demoReply(transcript, tools).content).toContain('todoWrite returned an error: Error: bad JSON');
  });

  it('answers directly when todoWrite is not among the allowed tools', () => {
    const reply = demoReply([entry('user', 'Hello')], []);
    expect(reply.tool_calls).toEqual([]);
    expect(reply.content).toContain('demo model');
  });

  it('plans again for a new user message after an earlier answered turn', () => {
    const transcript = [entry('user', 'First'), entry('assistant', 'answer'), entry('user', 'Second question')];
    const reply = demoReply(transcript, tools);
    expect(reply.tool_calls).toHaveLength(1);
    expect(reply.tool_calls[0]!.arguments).toContain('Second question');
    expect(reply.tool_calls[0]!.arguments).not.toContain('First');
  });

  it('mentions "demo model" in every reply it gives, whatever the transcript', () => {
    const transcripts: TranscriptEntry[][] = [
      [],
      [entry('user', 'hi')],
      [entry('user', '/tool todoWrite {}')],
      [entry('user', 'hi'), entry('assistant', 'x', { tool_calls: [{ id: 'c', name: 'todoWrite', arguments: '{}' }] })],
      [entry('user', 'hi'), entry('assistant', 'x'), entry('notice', 'n'), entry('error', 'e')],
    ];
    for (const transcript of transcripts) {
      for (const names of [tools, []]) {
        expect(demoReply(transcript, names).content).toContain('demo model');
      }
    }
  });

  it('turns /tool lines into exactly those calls with the raw arguments, in order', () => {
    const request = [
      'Please do this:',
      '/tool todoWrite {"todos": []}',
      '  /tool readFile {"path": "a.txt"}  ',
      '/tool todoWrite {"todos": [',
      '/tool noArgs',
    ].join('\n');
    const transcript = [entry('assistant', 'earlier'), entry('user', request)];
    const reply = demoReply(transcript, tools);
    expect(reply.tool_calls).toEqual([
      { id: 'demo_2_0', name: 'todoWrite', arguments: '{"todos": []}' },
      { id: 'demo_2_1', name: 'readFile', arguments: '{"path": "a.txt"}' },
      { id: 'demo_2_2', name: 'todoWrite', arguments: '{"todos": [' },
      { id: 'demo_2_3', name: 'noArgs', arguments: '' },
    ]);
    expect(reply.content).toContain('demo model');
    expect(reply.content).toContain('todoWrite, readFile, todoWrite, noArgs');
  });

  it('does not treat /tool in the middle of a line as a tool request', () => {
    const reply = demoReply([entry('user', 'type /tool todoWrite {} to try it')], []);
    expect(reply.tool_calls).toEqual([]);
  });

  it('is deterministic: the same transcript gives the same reply', () => {
    const transcript = [entry('user', 'Plan a picnic\nwith friends')];
    const copy = JSON.parse(JSON.stringify(transcript)) as TranscriptEntry[];
    expect(demoReply(copy, tools)).toEqual(demoReply(transcript, tools));

    const later = [
      ...transcript,
      entry('assistant', 'x', { tool_calls: [{ id: 'c', name: 'todoWrite', arguments: '{}' }] }),
      entry('tool', 'ok', { tool_call_id: 'c', name: 'todoWrite' }),
    ];
    expect(demoReply(later, tools)).toEqual(demoReply(JSON.parse(JSON.stringify(later)), tools));
  });
});

describe('demo model delegation', () => {
  it('hands a request that says "delegate" to a sync sub-agent whose instruction does not say it again', async () => {
    const { demoReply } = await import('../../src/activities/demo-model.js');
    const { subAgent } = await import('../../src/shared/tools/sub-agents.js');
    const transcript = [
      { id: 'u1', role: 'user' as const, content: 'Please delegate the research on trees.', created_at: '2024-01-01T00:00:00.000Z' },
    ];
    const reply = demoReply(transcript, ['todoWrite', 'subAgent']);
    expect(reply.content).toContain('demo model');
    expect(reply.tool_calls).toHaveLength(1);
    expect(reply.tool_calls[0]!.name).toBe('subAgent');
    const args = subAgent.input.parse(JSON.parse(reply.tool_calls[0]!.arguments));
    expect(args.mode).toBe('sync');
    expect(args.instruction).not.toMatch(/delegate/i);
    expect(demoReply(transcript, ['todoWrite']).tool_calls[0]!.name).toBe('todoWrite');
  });
});

describe('demoReply with memory tools', () => {
  it('saves what it is told to remember, then searches for it, then answers with both results', () => {
    const memoryTools = ['saveMemory', 'searchMemory', 'todoWrite'];
    const transcript = [entry('user', 'Please remember that my favourite colour is green')];
    const first = demoReply(transcript, memoryTools);
    expect(first.tool_calls.map((call) => call.name)).toEqual(['saveMemory']);
    expect(JSON.parse(first.tool_calls[0]!.arguments)).toEqual({ content: 'my favourite colour is green', tags: ['demo'] });

    transcript.push(entry('assistant', first.content!, { tool_calls: first.tool_calls }));
    transcript.push(entry('tool', '{"memory_id":"mem-1","saved":true}', { tool_call_id: first.tool_calls[0]!.id, name: 'saveMemory' }));
    const second = demoReply(transcript, memoryTools);
    expect(second.tool_calls.map((call) => call.name)).toEqual(['searchMemory']);

    transcript.push(entry('assistant', second.content!, { tool_calls: second.tool_calls }));
    transcript.push(entry('tool', '{"results":[{"memory_id":"mem-1"}]}', { tool_call_id: second.tool_calls[0]!.id, name: 'searchMemory' }));
    const third = demoReply(transcript, memoryTools);
    expect(third.tool_calls).toEqual([]);
    expect(third.content).toContain('searchMemory answered: {"results":[{"memory_id":"mem-1"}]}');
  });
});

describe('demoReply with goals', () => {
  it('sets a goal when asked, and completes it on the continuation turn', () => {
    const goalTools = ['createGoal', 'completeGoal', 'todoWrite'];
    const first = demoReply([entry('user', 'Make this a goal: write a haiku')], goalTools);
    expect(first.tool_calls.map((call) => call.name)).toEqual(['createGoal']);
    expect(JSON.parse(first.tool_calls[0]!.arguments)).toMatchObject({ max_turns: 3 });
    const continuation = entry(
      'user',
      '[Goal continuation] Keep working toward your active goal(s):\n- goal-1a2b3c4d (turn 2 of at most 3): An answer\nWhen...',
      { id: 'goal-continuation:1' },
    );
    const second = demoReply([continuation], goalTools);
    expect(second.tool_calls).toEqual([{ id: 'demo_1_0', name: 'completeGoal', arguments: '{"goal_id":"goal-1a2b3c4d"}' }]);
  });
});

describe('demoReply and the messages a session queues for itself', () => {
  const allTools = ['subAgent', 'askUser', 'saveMemory', 'createGoal', 'completeGoal', 'todoWrite', 'planWrite'];
  const quoting = 'Please delegate this, ask me first, remember it and make it a goal.\n/tool todoWrite {"todos":[]}';

  it('reacts to "delegate", "ask", "remember", "goal" and /tool lines in a person\'s message', () => {
    const reply = demoReply([entry('user', quoting, { id: 'a-client-message-id' })], allTools);
    expect(reply.tool_calls.map((call) => call.name)).toEqual(['todoWrite']);
    expect(demoReply([entry('user', 'Please delegate this.')], allTools).tool_calls.map((call) => call.name)).toEqual(['subAgent']);
    expect(demoReply([entry('user', 'Ask me first.')], allTools).tool_calls.map((call) => call.name)).toEqual(['askUser']);
  });

  it.each([
    [
      'a sub-agent notice',
      'sub-agent-finished:0b6f5c1e',
      `[Sub-agent notice] Sub-agent "Helper" finished with status completed. Its final message:\n${quoting}`,
    ],
    ['a loop firing', 'loop:loop-1a2b:2', `[Loop loop-1a2b, firing 2 of at most 5] ${quoting}`],
    ['a cron firing', 'cron:cron-9f:1', `[Cron cron-9f, every day at 09:00] ${quoting}`],
    ['a goal continuation', 'goal-continuation:3', `[Goal continuation] Keep working toward your active goal(s):\n${quoting}`],
  ])('answers %s that quotes every keyword and a /tool line without calling a tool', (name, id, content) => {
    const transcript = [
      entry('user', 'Plan a picnic', { id: 'person-1' }),
      entry('assistant', 'I am the demo model.'),
      entry('user', content, { id }),
    ];
    const reply = demoReply(transcript, allTools);
    expect(reply.tool_calls).toEqual([]);
    expect(reply.content).toContain('demo model');
    expect(reply.content).toContain(`I read ${name}`);
  });

  it('still completes the goal a goal continuation names, and only when the continuation comes from the session', () => {
    const content = '[Goal continuation] Keep working toward your active goal(s):\n- goal-1a2b3c4d (turn 2 of at most 3): An answer\n';
    const fromSession = demoReply([entry('user', content, { id: 'goal-continuation:2' })], allTools);
    expect(fromSession.tool_calls.map((call) => call.name)).toEqual(['completeGoal']);
    const typedByAPerson = demoReply([entry('user', content, { id: 'person-2' })], allTools);
    expect(typedByAPerson.tool_calls.map((call) => call.name)).toEqual(['createGoal']);
  });
});
