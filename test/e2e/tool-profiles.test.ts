import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestArbor, ScriptedModel, text, toolCall, toolCalls, type ModelRequest, type TestArbor } from '../../src/testing.js';
import { toolProfiles } from '../../src/shared/tools/profiles/index.js';
import { toolNames } from '../../src/shared/tools/registry.js';

/** The built-in tools of a profile in the order the model is shown them, less those the kit's worker does not serve. */
// Skill and ToolSearch are in every profile, offered only with a skills folder and deferred host tools (none here).
const offered = (profile: keyof typeof toolProfiles, unserved: readonly string[] = ['webFetch', 'Skill', 'ToolSearch']) =>
  toolNames.filter((name) => (toolProfiles[profile].tools as readonly string[]).includes(name) && !unserved.includes(name));

const lastResult = (request: ModelRequest) => request.toolResults.at(-1) as Record<string, unknown>;

describe('tool profiles (testing kit, scripted models that speak one seed each)', () => {
  const model = new ScriptedModel();
  let arbor: TestArbor;

  beforeAll(async () => {
    arbor = await createTestArbor({
      model,
      modelName: 'profile-model',
      waitTimeoutMs: 30_000,
      workflowBundlePath: inject('workflowBundlePath'),
    });
  });

  afterAll(async () => {
    await arbor?.teardown();
  });

  it("gives a new session the rtc profile: the rtc tools and prompt, rtc calls answered, other seeds' tools refused", async () => {
    const instruction = 'Track the release in the rtc dialect';
    model.forInstruction(
      instruction,
      toolCall('todoWrite', { todos: [{ content: 'Tag the release', status: 'in_progress', active_form: 'Tagging the release' }] }),
      toolCall('createLoop', { prompt: 'Check the build', interval_seconds: 3_600, max_turns: 3 }),
      (request) => toolCalls(['listLoops', {}], ['cancelLoop', { loop_id: String(lastResult(request).loop_id) }]),
      toolCalls(['TaskCreate', { subject: 'Tag it' }], ['todo_write', { todos: [] }]),
      text('Tracking.'),
    );
    const session = await arbor.startSession({ instruction });
    const snapshot = await arbor.waitUntilIdle(session);
    expect(snapshot.profile).toBe('rtc');
    const requests = model.requestsFor(instruction);
    // The kit's worker offers no webFetch (createTestArbor's webFetch option) and has no search engine: every other rtc tool is there.
    expect(requests[0]!.tools).toEqual(offered('rtc', ['webFetch', 'webSearch', 'Skill', 'ToolSearch']));
    expect(requests[0]!.tools).toHaveLength(21);
    expect(requests[0]!.tools).not.toContain('TaskCreate');
    expect(requests[0]!.system).toBe(toolProfiles.rtc.systemPrompt);
    expect(requests[1]!.toolResults[0]).toMatch(/^Todo list updated: 1 item\(s\)/);
    expect(requests[2]!.toolResults[0]).toMatchObject({ status: 'active', interval_seconds: 3_600, max_turns: 3 });
    const [loops, cancelled] = requests[3]!.toolResults as [unknown, Record<string, unknown>];
    expect(JSON.stringify(loops)).toContain('Check the build');
    expect(cancelled).toMatchObject({ status: 'cancelled' });
    const [taskCreate, todoWriteSoai] = requests[4]!.toolResults as string[];
    expect(taskCreate).toMatch(
      /^Error: Unknown tool "TaskCreate"\. Available tools: askUser, todoWrite, .*resumeLoop\. This session has the rtc tool profile\.$/,
    );
    expect(todoWriteSoai).toMatch(/^Error: Unknown tool "todo_write"/);
    await arbor.client.session(session.id).stop();
  });

  it('answers the claurst task board and cron tools with claurst parameters and result shapes', async () => {
    const instruction = 'Organise the sprint in the claurst dialect';
    let cronId = '';
    model.forInstruction(
      instruction,
      toolCall('TaskCreate', { subject: 'Write the parser', description: 'Cover unicode', metadata: { area: 'parser' } }),
      toolCall('TaskCreate', { subject: 'Ship it' }),
      toolCall('TaskUpdate', { taskId: '2', addBlockedBy: ['1'], owner: 'alice', status: 'in_progress' }),
      toolCalls(['TaskGet', { taskId: '2' }], ['TaskList', {}], ['TaskGet', { taskId: '99' }]),
      toolCall('CronCreate', { cron: '0 9 * * 1-5', prompt: 'Post the standup summary', recurring: true, durable: false }),
      (request) => {
        cronId = String(lastResult(request).id);
        return toolCalls(['CronList', {}], ['CronDelete', { id: cronId }], ['todoWrite', { todos: [] }]);
      },
      text('Organised.'),
    );
    const session = await arbor.startSession({ instruction, profile: 'claurst' });
    expect((await arbor.waitUntilIdle(session)).profile).toBe('claurst');
    const requests = model.requestsFor(instruction);
    expect(requests[0]!.tools).toEqual([
      'TaskCreate',
      'TaskGet',
      'TaskUpdate',
      'TaskList',
      'CronCreate',
      'CronList',
      'CronDelete',
      'Agent',
      'Task',
      'TaskOutput',
      'TaskStop',
      'KillShell',
      'SendMessage',
      'AskUserQuestion',
    ]);
    expect(requests[0]!.system).toBe(toolProfiles.claurst.systemPrompt);
    expect(requests[1]!.toolResults[0]).toEqual({ task: { id: '1', subject: 'Write the parser' } });
    expect(requests[3]!.toolResults[0]).toEqual({
      success: true,
      taskId: '2',
      updatedFields: ['owner', 'blockedBy', 'status'],
      statusChange: { from: 'pending', to: 'in_progress' },
    });
    const [got, listed, missing] = requests[4]!.toolResults as Record<string, unknown>[];
    expect(got).toEqual({
      task: {
        id: '2',
        subject: 'Ship it',
        description: '',
        status: 'in_progress',
        owner: 'alice',
        metadata: {},
        blocks: [],
        blockedBy: ['1'],
      },
    });
    expect(listed).toEqual({
      tasks: [
        { id: '1', subject: 'Write the parser', status: 'pending', owner: null, blockedBy: [] },
        { id: '2', subject: 'Ship it', status: 'in_progress', owner: 'alice', blockedBy: ['1'] },
      ],
    });
    expect(missing).toEqual({ task: null });
    expect(requests[5]!.toolResults[0]).toMatchObject({ id: cronId, humanSchedule: expect.any(String), recurring: true, durable: false });
    const [jobs, deleted, todo] = requests[6]!.toolResults as [Record<string, unknown>, Record<string, unknown>, string];
    expect(jobs).toMatchObject({
      jobs: [{ id: cronId, cron: '0 9 * * 1-5', prompt: 'Post the standup summary', humanSchedule: expect.any(String) }],
    });
    expect(deleted).toMatchObject({ id: cronId });
    expect(todo).toMatch(
      /^Error: Unknown tool "todoWrite"\. Available tools: TaskCreate, .*, AskUserQuestion\. This session has the claurst tool profile\.$/,
    );
    await arbor.client.session(session.id).stop();
  });

  it('answers the soai work tools under soai names, and spawns and cancels soai subagents by soai rules', async () => {
    const instruction = 'Plan the migration in the soai dialect';
    const plan = '# Migration\n1. copy\n2. switch';
    const defaultTask = 'Look around with the default subagent set';
    const textOnlyTask = 'Summarise the plan in prose';
    const sleeperTask = 'Wait for the database window';
    model.forInstruction(defaultTask, text('Looked around.'));
    model.forInstruction(textOnlyTask, text('A summary.'));
    model.forInstruction(sleeperTask, toolCall('wait', { seconds: 86_400, reason: 'database window' }), text('Window open.'));
    let sleeperId = '';
    model.forInstruction(
      instruction,
      toolCall('todo_write', {
        todos: [
          { content: 'Copy the data', status: 'in_progress' },
          { content: 'Switch over', status: 'in_progress' },
        ],
      }),
      toolCalls(
        [
          'todo_write',
          {
            todos: [
              { content: 'Copy the data', status: 'in_progress' },
              { content: 'Switch over', status: 'pending' },
            ],
          },
        ],
        ['plan_write', { content: plan, title: 'Migration' }],
      ),
      toolCalls(['plan_get', {}], ['notify_user', { type: 'success', title: 'Plan ready', message: 'The migration plan is written.' }]),
      toolCalls(
        ['subagent_spawn', { task: defaultTask, display_name: 'Scout', max_iterations: 3 }],
        ['subagent_spawn', { task: textOnlyTask, tools: [] }],
        ['subagent_spawn', { task: 'Never starts', tools: ['todo_write', 'plan_get', 'automation_create'] }],
        ['subagent_spawn', { task: sleeperTask, tools: ['wait'] }],
      ),
      (request) => {
        sleeperId = String((request.toolResults[3] as Record<string, unknown>).subagent_id);
        return toolCall('subagent_cancel', { subagent_id: sleeperId });
      },
      toolCall('planWrite', { content: 'rtc-style' }),
      text('Planned.'),
      // The notices of the finished subagents start turns of their own.
      ...Array.from({ length: 3 }, () => text('Noted.')),
    );
    const session = await arbor.startSession({ instruction, profile: 'soai' });
    await arbor.settle(session);
    const snapshot = await arbor.waitUntilIdle(session);
    expect(snapshot).toMatchObject({
      profile: 'soai',
      todos: [{ content: 'Copy the data', status: 'in_progress' }, { status: 'pending' }],
    });
    expect(snapshot.plan).toMatchObject({ title: 'Migration', revision: 1 });

    const requests = model.requestsFor(instruction);
    expect(requests[0]!.tools).toEqual(offered('soai'));
    expect(requests[0]!.tools).toEqual([
      'wait',
      'automation_create',
      'automation_update',
      'automation_run_enqueue',
      'automation_run_get',
      'automation_run_wait',
      'subagent_observe',
      'ask_user',
      'todo_write',
      'plan_write',
      'plan_get',
      'notify_user',
      'stop_conversation',
      'subagent_spawn',
      'subagent_cancel',
    ]);
    expect(requests[0]!.system).toBe(toolProfiles.soai.systemPrompt);
    expect(requests[1]!.toolResults[0]).toMatch(/^Error: At most one todo may be in_progress, got 2/);
    expect(requests[2]!.toolResults).toEqual([
      expect.stringMatching(/^Todo list updated: 2 item/),
      `Plan saved: revision 1, ${plan.length} characters.`,
    ]);
    expect(requests[3]!.toolResults[0]).toEqual({ title: 'Migration', revision: 1, size: plan.length, content: plan });

    const [scout, textOnly, refused, sleeper] = requests[4]!.toolResults as [
      Record<string, unknown>,
      Record<string, unknown>,
      string,
      Record<string, unknown>,
    ];
    // Omitted tools: the parent's less the fixed removals (the spawn, todo, plan, notify and automation tools).
    expect(scout).toMatchObject({ display_name: 'Scout', status: 'running', mode: 'execute', tools: ['wait', 'stop_conversation'] });
    expect(textOnly).toMatchObject({ status: 'running', tools: [] });
    expect(refused).toMatch(
      /^Error: No tools are left for the subagent once the fixed removals are taken from todo_write, plan_get, automation_create/,
    );
    expect(sleeper).toMatchObject({ tools: ['wait'] });
    expect(model.requestsFor(defaultTask)[0]!.tools).toEqual(['wait', 'stop_conversation']);
    expect(model.requestsFor(textOnlyTask)[0]!.tools).toEqual([]);
    expect(requests[5]!.toolResults[0]).toEqual({ subagent_id: sleeperId, status: 'cancelled', note: expect.any(String) });
    expect(requests[6]!.toolResults[0]).toMatch(/^Error: Unknown tool "planWrite"\. .*This session has the soai tool profile\.$/);

    const tree = await arbor.client.session(session.id).tree();
    const { children } = tree;
    expect(children.map((child) => child.title).sort()).toEqual(['Scout', sleeperTask, textOnlyTask].sort());
    for (const child of children) expect((await arbor.snapshot(child.session_id)).profile).toBe('soai');
    await arbor.client.session(session.id).stop();
  });

  it('runs the claurst agent tools in a claurst session: Agent, TaskOutput, SendMessage and AskUserQuestion, none unknown', async () => {
    const instruction = 'Delegate in the claurst dialect';
    const helperTask = 'Help in the claurst dialect';
    let helperId = '';
    model.forInstruction(
      instruction,
      toolCall('Agent', { description: 'Claurst helper', prompt: helperTask, run_in_background: true, name: 'helper' }),
      (request) => {
        helperId = String(lastResult(request).agent_id);
        return toolCall('SendMessage', { to: 'helper', message: 'Also check the docs.' });
      },
      () => toolCall('TaskOutput', { task_id: helperId, block: true, timeout: 60_000 }),
      toolCall('AskUserQuestion', {
        questions: [
          {
            question: 'Ship now?',
            header: 'Release',
            options: [
              { label: 'Yes', value: 'ship' },
              { label: 'No', value: 'wait' },
            ],
          },
        ],
      }),
      text('Delegated and asked.'),
      // The sub-agent's completion notice is a turn of its own.
      text('Notice read.'),
    );
    model.forInstruction(helperTask, text('Helped.'), text('Docs checked.'));
    const session = await arbor.startSession({ instruction, profile: 'claurst' });
    await arbor.answerQuestions(session, { 'Ship now?': 'Yes' });
    await arbor.waitUntilIdle(session);

    const requests = model.requestsFor(instruction);
    const results = requests.slice(1, 5).map(lastResult);
    expect(results[0]).toMatchObject({ status: 'async_launched', agent_id: expect.any(String) });
    expect(JSON.stringify(results[1])).not.toMatch(/Unknown tool/);
    expect(results[2]).toMatchObject({ retrieval_status: 'success', task: expect.objectContaining({ status: 'completed' }) });
    expect(results[3]).toMatchObject({ answers: { 'Ship now?': 'ship' } });
    expect(requests.flatMap((request) => request.toolResults).join('\n')).not.toContain('Unknown tool');
  });

  it('runs the soai subagent_observe and ask_user tools in a soai session, none unknown', async () => {
    const instruction = 'Observe in the soai dialect';
    const childTask = 'Scout in the soai dialect';
    let childId = '';
    model.forInstruction(
      instruction,
      toolCall('subagent_spawn', { task: childTask, display_name: 'Scout' }),
      (request) => {
        childId = String(lastResult(request).subagent_id);
        return toolCall('subagent_observe', { subagent_id: childId, mode: 'terminal', timeout_ms: null });
      },
      toolCall('ask_user', { questions: [{ question: 'Which region?', options: [{ label: 'EU' }, { label: 'US' }] }] }),
      text('Observed and asked.'),
      // The sub-agent's completion notice is a turn of its own.
      text('Notice read.'),
    );
    model.forInstruction(childTask, text('Scouted.'));
    const session = await arbor.startSession({ instruction, profile: 'soai' });
    await arbor.answerQuestions(session, { 'Which region?': 'EU' });
    await arbor.waitUntilIdle(session);

    const requests = model.requestsFor(instruction);
    expect(lastResult(requests[1]!)).toMatchObject({ subagent_id: expect.any(String), status: 'running' });
    expect(JSON.stringify(lastResult(requests[2]!))).toContain('Scouted.');
    expect(JSON.stringify(requests[3]!.toolResults)).toContain('EU');
    expect(requests.flatMap((request) => request.toolResults).join('\n')).not.toContain('Unknown tool');
  });

  it('keeps a Plan-mode soai parent to Plan-mode subagents without destructive tools', async () => {
    const instruction = 'Research the rollout in Plan mode, soai dialect';
    const planTask = 'Read the rollout notes';
    model.forInstruction(planTask, text('Read.'));
    model.forInstruction(
      instruction,
      toolCalls(
        ['subagent_spawn', { task: 'Roll out now', mode: 'execute' }],
        ['subagent_spawn', { task: 'Automate it', tools: ['automation_run_get', 'automation_create'] }],
        ['subagent_spawn', { task: planTask }],
      ),
      text('Researched.'),
      text('Noted.'),
    );
    const session = await arbor.startSession({ instruction, profile: 'soai', work_mode: 'plan' });
    await arbor.settle(session);
    await arbor.waitUntilIdle(session);
    const [execute, automation, plan] = model.requestsFor(instruction)[1]!.toolResults as [string, string, Record<string, unknown>];
    expect(execute).toMatch(/^Error: This conversation is in Plan mode, so it may spawn only Plan-mode subagents/);
    expect(automation).toMatch(
      /^Error: No tools are left for the subagent once the fixed removals and the destructive tools \(Plan mode\)/,
    );
    expect(plan).toMatchObject({ mode: 'plan', tools: ['wait', 'stop_conversation'] });
    const child = (await arbor.client.session(session.id).tree()).children[0];
    expect(await arbor.snapshot(child!.session_id)).toMatchObject({ profile: 'soai', work_mode: 'plan' });
    await arbor.client.session(session.id).stop();
  });

  it('gives an rtc sub-agent the rtc profile and tools', async () => {
    const instruction = 'Delegate the survey in the rtc dialect';
    const childTask = 'Survey the three vendors';
    model.forInstruction(childTask, text('Vendor B.'));
    model.forInstruction(
      instruction,
      toolCall('subAgent', { title: 'Vendor survey', instruction: childTask, mode: 'sync' }),
      text('B it is.'),
    );
    const session = await arbor.startSession({ instruction });
    await arbor.waitUntilIdle(session);
    expect(model.requestsFor(instruction)[1]!.toolResults[0]).toMatchObject({ status: 'completed', content: 'Vendor B.' });
    expect(model.requestsFor(childTask)[0]!.tools).toEqual(model.requestsFor(instruction)[0]!.tools);
    const child = (await arbor.client.session(session.id).tree()).children[0];
    expect((await arbor.snapshot(child!.session_id)).profile).toBe('rtc');
    await arbor.client.session(session.id).stop();
  });

  it('refuses, at the SDK, tools a session names that its profile does not have', async () => {
    await expect(arbor.startSession({ instruction: 'Anything', profile: 'rtc', tools: ['todoWrite', 'TaskCreate'] })).rejects.toThrow(
      /The rtc profile has no tool\(s\) TaskCreate\./,
    );
  });
});
