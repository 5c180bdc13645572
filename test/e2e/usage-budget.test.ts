/**
 * Issue 27, parts 2 and 3: every model call's usage is recorded with its reply and priced, a tree's totals are the sum
 * of what the provider reported across its sub-agents, and a budget a tree shares stops it at the limit and lets it
 * go on once raised. On the tests' dev server, so the usage search attributes are real.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestArbor, ScriptedModel, text, type ModelStep, type StepUsage, type TestArbor } from '../../src/testing.js';
import { costUsdKey, totalTokensKey } from '../../src/shared/search-attributes.js';
import type { SessionEvent } from '../../src/shared/events.js';
import { runCli } from '../support/processes.js';
import { waitUntil } from '../support/wait.js';

const modelName = 'priced-model';
/** Dollars per million tokens: 2 input, 1 cached input, 8 output. */
const prices = { [modelName]: { input: 2, cached_input: 1, output: 8 } };

const withUsage = (step: ModelStep, usage: StepUsage): ModelStep => ({ ...step, usage }) as ModelStep;
const todo = (content: string): ModelStep => ({
  toolCalls: [{ name: 'todoWrite', arguments: { todos: [{ content, status: 'pending', activeForm: content }] } }],
});
const spawn = (...children: string[]): ModelStep => ({
  toolCalls: children.map((instruction) => ({ name: 'subAgent', arguments: { title: instruction, instruction, mode: 'sync' } })),
});

describe('usage, cost and budgets', () => {
  const model = new ScriptedModel();
  let arbor: TestArbor;

  beforeAll(async () => {
    arbor = await createTestArbor({
      model,
      modelName,
      prices,
      server: { address: inject('temporalAddress') },
      workflowBundlePath: inject('workflowBundlePath'),
      waitTimeoutMs: 45_000,
    });
  });

  afterAll(async () => {
    await arbor?.teardown();
  });

  it("records each call's usage and cost, and a tree's totals are the sum of what the provider reported for every session", async () => {
    const root = 'Count the tree';
    model.forInstruction(
      root,
      withUsage(spawn('Child A', 'Child B'), { prompt_tokens: 100, completion_tokens: 20 }),
      withUsage(text('Both children are done.'), { prompt_tokens: 300, completion_tokens: 30, cached_tokens: 100 }),
    );
    model.forInstruction(
      'Child A',
      withUsage(todo('a'), { prompt_tokens: 1_000, completion_tokens: 200, reasoning_tokens: 50 }),
      withUsage(text('A done.'), { prompt_tokens: 1_500, completion_tokens: 100, cached_tokens: 1_000 }),
    );
    model.forInstruction('Child B', withUsage(text('B done.'), { prompt_tokens: 400, completion_tokens: 40 }));

    const session = await arbor.startSession({ profile: 'all', instruction: root });
    const snapshot = await arbor.waitUntilIdle(session);

    expect(snapshot.last_message?.content).toBe('Both children are done.');
    // Root: (100 * 2 + 20 * 8) + (200 * 2 + 100 * 1 + 30 * 8) = 360 + 740 = 1,100 micro-dollars.
    expect(snapshot.usage?.session).toEqual({
      calls: 2,
      prompt_tokens: 400,
      completion_tokens: 50,
      cached_tokens: 100,
      reasoning_tokens: 0,
      total_tokens: 450,
      cost_usd: 0.0011,
      unpriced_calls: 0,
    });
    const children = await Promise.all(snapshot.children.map((child) => arbor.client.session(child.sub_session_id).snapshot()));
    const byTitle = Object.fromEntries(children.map((child) => [child.title, child.usage?.session]));
    // A: (1,000 * 2 + 200 * 8) + (500 * 2 + 1,000 * 1 + 100 * 8) = 3,600 + 2,800 = 6,400 micro-dollars.
    expect(byTitle['Child A']).toMatchObject({
      calls: 2,
      total_tokens: 2_800,
      cached_tokens: 1_000,
      reasoning_tokens: 50,
      cost_usd: 0.0064,
    });
    // B: 400 * 2 + 40 * 8 = 1,120 micro-dollars.
    expect(byTitle['Child B']).toMatchObject({ calls: 1, total_tokens: 440, cost_usd: 0.00112 });
    const reported = model.requests.filter((request) => [root, 'Child A', 'Child B'].includes(request.instruction));
    expect(reported).toHaveLength(5);
    expect(snapshot.usage?.tree).toEqual({
      calls: 5,
      prompt_tokens: 3_300,
      completion_tokens: 390,
      cached_tokens: 1_100,
      reasoning_tokens: 50,
      total_tokens: 3_690,
      cost_usd: 0.00862,
      unpriced_calls: 0,
    });

    const events: SessionEvent[] = [];
    for await (const event of session.events({ follow: false })) events.push(event);
    const usage = events.filter((event): event is Extract<SessionEvent, { type: 'usage' }> => event.type === 'usage');
    expect(usage.map((event) => [event.model, event.prompt_tokens, event.completion_tokens, event.cost_usd])).toEqual([
      [modelName, 100, 20, 0.00036],
      [modelName, 300, 30, 0.00074],
    ]);

    // The Web UI lists the most expensive trees by these (see the README's query).
    await waitUntil(
      async () =>
        (await arbor.client.temporal.workflow.getHandle(session.id).describe()).typedSearchAttributes.get(totalTokensKey) === 3_690,
      20_000,
    );
    const description = await arbor.client.temporal.workflow.getHandle(session.id).describe();
    expect(description.typedSearchAttributes.get(costUsdKey)).toBe(0.00862);

    const cliEnv = { TEMPORAL_ADDRESS: inject('temporalAddress') };
    const budget = await runCli(['budget', session.id, '--max-cost-usd', '5'], cliEnv);
    expect(budget.stdout).toContain(`${session.id} budget set`);
    expect(budget.stdout).toContain('budget    max_cost_usd $5.0000 for the whole tree');
    const shown = await runCli(['show', session.id], cliEnv);
    expect(shown.stdout).toContain('usage     450 tokens in 2 model calls (400 prompt, 100 cached; 50 completion), cost $0.00110');
    expect(shown.stdout).toContain(
      'tree      3,690 tokens in 5 model calls (3,300 prompt, 1,100 cached; 390 completion, 50 reasoning), cost $0.00862',
    );
    expect(shown.stdout).toContain('budget    max_cost_usd $5.0000 for the whole tree');
  });

  it('stops a tree of four sub-agents that would spend three times its budget at the budget, and goes on once it is raised', async () => {
    const root = 'Spend in parallel';
    const parts = ['Part 1', 'Part 2', 'Part 3', 'Part 4'];
    const call: StepUsage = { prompt_tokens: 40, completion_tokens: 10 };
    model.forInstruction(
      root,
      withUsage(spawn(...parts), { prompt_tokens: 8, completion_tokens: 2 }),
      withUsage(text('Going on with a bigger budget.'), { prompt_tokens: 8, completion_tokens: 2 }),
    );
    // Each part would make 7 calls of 50 tokens: 1,400 tokens for the four, against a budget of 400.
    for (const part of parts)
      model.forInstruction(
        part,
        ...Array.from({ length: 6 }, (_, i) => withUsage(todo(`${part} ${i}`), call)),
        withUsage(text(`${part} done.`), call),
      );

    const session = await arbor.startSession({ profile: 'all', instruction: root, max_tokens: 400 });
    const stopped = await arbor.waitUntilIdle(session);

    const tree = stopped.usage!.tree!;
    const requests = model.requests.filter((request) => request.instruction === root || parts.includes(request.instruction));
    // Every call the provider answered is counted, once: the root's one call of 10 tokens and the parts' calls of 50.
    expect(tree.calls).toBe(requests.length);
    expect(tree.total_tokens).toBe(10 + (requests.length - 1) * 50);
    // Stopped at the budget: over it by at most one call in flight per member.
    expect(tree.total_tokens).toBeGreaterThanOrEqual(400);
    expect(tree.total_tokens).toBeLessThanOrEqual(400 + parts.length * 50);
    expect(stopped.last_message).toMatchObject({ role: 'notice' });
    expect(stopped.last_message?.content).toMatch(
      /^The token budget is spent: this session's tree has used [\d,]+ tokens of its max_tokens 400\./,
    );
    expect(stopped.usage?.budget_stop).toBe(stopped.last_message?.content);
    // Every session's spending is accounted: the root's tree is its own and each part's own, as their snapshots tell it.
    const members = await Promise.all(stopped.children.map((child) => arbor.client.session(child.sub_session_id).snapshot()));
    expect(members.map((member) => member.usage?.draws_from_root)).toEqual([true, true, true, true]);
    expect(stopped.usage!.session.total_tokens + members.reduce((sum, member) => sum + member.usage!.session.total_tokens, 0)).toBe(
      tree.total_tokens,
    );
    expect(members.filter((member) => /budget is spent|held by sub-agents/.test(member.usage?.budget_stop ?? '')).length).toBeGreaterThan(
      0,
    );

    const raised = await session.setBudget({ max_tokens: 2_000 });
    expect(raised.budget).toEqual({ max_tokens: 2_000 });
    expect(raised.spent.total_tokens).toBe(tree.total_tokens);
    await session.send('Go on.');
    const after = await arbor.waitUntilIdle(session);
    expect(after.last_message?.content).toBe('Going on with a bigger budget.');
    expect(after.usage?.budget_stop).toBeNull();
    expect(after.usage?.tree?.total_tokens).toBe(tree.total_tokens + 10);
  });
  it('reaches sub-agents already running when the budget is set later: they draw from it, and the tree stops at it', async () => {
    const root = 'Budget set while they run';
    const parts = ['Running 1', 'Running 2', 'Running 3', 'Running 4'];
    const call: StepUsage = { prompt_tokens: 40, completion_tokens: 10 };
    let releaseParts!: () => void;
    const budgetSet = new Promise<void>((resolve) => (releaseParts = resolve));
    model.forInstruction(
      root,
      withUsage(spawn(...parts), { prompt_tokens: 8, completion_tokens: 2 }),
      withUsage(text('Going on after the raise.'), { prompt_tokens: 8, completion_tokens: 2 }),
    );
    // Each part would make 7 calls of 50 tokens (1,400 for the four, three times the budget of 450); its second call
    // waits until the budget is set, so all four are running then, started without one.
    for (const part of parts)
      model.forInstruction(
        part,
        withUsage(todo(`${part} 0`), call),
        async () => (await budgetSet, withUsage(todo(`${part} 1`), call)),
        ...Array.from({ length: 5 }, (_, i) => withUsage(todo(`${part} ${i + 2}`), call)),
        withUsage(text(`${part} done.`), call),
      );

    const session = await arbor.startSession({ profile: 'all', instruction: root });
    await waitUntil(() => parts.every((part) => model.requestsFor(part).length === 2), 45_000);
    const set = await session.setBudget({ max_tokens: 450 });
    expect(set.budget).toEqual({ max_tokens: 450 });
    // Told to draw from the root, each part reports what it spent so far: the root counts the whole tree at once.
    await waitUntil(async () => (await session.snapshot()).usage?.tree?.total_tokens === 10 + parts.length * 50, 30_000);
    releaseParts();
    const stopped = await arbor.waitUntilIdle(session);

    const tree = stopped.usage!.tree!;
    const requests = model.requests.filter((request) => request.instruction === root || parts.includes(request.instruction));
    expect(tree.calls).toBe(requests.length);
    expect(tree.total_tokens).toBe(10 + (requests.length - 1) * 50);
    expect(tree.total_tokens).toBeGreaterThanOrEqual(450);
    expect(tree.total_tokens).toBeLessThanOrEqual(450 + parts.length * 50);
    expect(requests.length - 1).toBeLessThan(parts.length * 7);
    const members = await Promise.all(stopped.children.map((child) => arbor.client.session(child.sub_session_id).snapshot()));
    expect(members.map((member) => member.usage?.draws_from_root)).toEqual([true, true, true, true]);
    expect(stopped.usage!.session.total_tokens + members.reduce((sum, member) => sum + member.usage!.session.total_tokens, 0)).toBe(
      tree.total_tokens,
    );
    expect(stopped.usage?.budget_stop).toMatch(
      /^The token budget is spent: this session's tree has used [\d,]+ tokens of its max_tokens 450\./,
    );

    await session.setBudget({ max_tokens: 5_000 });
    await session.send('Go on.');
    const after = await arbor.waitUntilIdle(session);
    expect(after.last_message?.content).toBe('Going on after the raise.');
    expect(after.usage?.tree?.total_tokens).toBe(tree.total_tokens + 10);
  });

  it('takes a budget from arbor start --max-tokens and --max-cost-usd, and refuses the call past it', async () => {
    const instruction = 'Start with a budget from the CLI';
    model.forInstruction(instruction, withUsage(text('Spent 70 tokens.'), { prompt_tokens: 40, completion_tokens: 30 }), text('Never.'));
    const env = { TEMPORAL_ADDRESS: inject('temporalAddress'), ARBOR_TASK_QUEUE: arbor.taskQueue };
    const started = await runCli(['start', instruction, '--max-tokens', '60', '--max-cost-usd', '0.25', '--json'], env);
    expect(started.code, started.stderr).toBe(0);
    const session = arbor.client.session((JSON.parse(started.stdout) as { session_id: string }).session_id);
    const first = await arbor.waitUntilIdle(session);
    expect(first.usage?.budget).toEqual({ max_tokens: 60, max_cost_usd: 0.25 });
    expect(first.last_message?.content).toBe('Spent 70 tokens.');

    await session.send('Go on.');
    const refused = await arbor.waitUntilIdle(session);
    expect(model.requestsFor(instruction)).toHaveLength(1);
    expect(refused.last_message?.content).toMatch(
      /^The token budget is spent: this session's tree has used 70 tokens of its max_tokens 60\./,
    );
    expect(refused.last_message?.content).toContain(`arbor budget ${session.id} `);
    // A bad amount is refused by the CLI before any session starts.
    const bad = await runCli(['start', 'Never started', '--max-cost-usd', 'lots'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--max-cost-usd/);
  });

  it('stops the goal driving a session once the budget is spent, and says why in the snapshot, without another call', async () => {
    const instruction = 'Draft until done';
    const call: StepUsage = { prompt_tokens: 40, completion_tokens: 10 };
    model.forInstruction(
      instruction,
      withUsage({ toolCalls: [{ name: 'createGoal', arguments: { condition: 'Ten drafts written', max_turns: 20 } }] }, call),
      withUsage(text('Draft 1.'), call),
      withUsage(text('Draft 2.'), call),
      withUsage(text('Draft 3, past the budget.'), call),
    );
    const session = await arbor.startSession({ profile: 'all', instruction, max_tokens: 120 });
    const stopped = await arbor.waitUntilIdle(session);

    expect(model.requestsFor(instruction)).toHaveLength(3);
    expect(stopped.goals.map((goal) => goal.status)).toEqual(['cancelled']);
    expect(stopped.usage?.budget_stop).toMatch(
      /^The token budget is spent: this session's tree has used 150 tokens of its max_tokens 120\./,
    );
    expect(stopped.usage?.budget).toEqual({ max_tokens: 120 });
  });

  it("gives each sub-agent the tree's smaller limit for its own calls, and its parent reads why it stopped", async () => {
    const root = 'Delegate within limits';
    const call: StepUsage = { prompt_tokens: 40, completion_tokens: 10 };
    model.forInstruction(root, spawn('Limited child'), (request) => text(`Child said: ${JSON.stringify(request.toolResults[0])}`));
    model.forInstruction('Limited child', ...Array.from({ length: 5 }, (_, i) => withUsage(todo(`step ${i}`), call)));
    const session = await arbor.startSession({ profile: 'all', instruction: root, sub_agent_budget: { max_tokens: 60 } });
    const done = await arbor.waitUntilIdle(session);

    const child = await arbor.client.session(done.children[0]!.sub_session_id).snapshot();
    // 50 tokens, then 100 (the second call started below 60), then refused.
    expect(child.usage).toMatchObject({ session: { calls: 2, total_tokens: 100 }, budget: { max_tokens: 60 } });
    expect(child.usage?.budget_stop).toMatch(/^The token budget is spent: this sub-agent has used 100 tokens of its max_tokens 60\./);
    // It names the sub-agent as the session whose budget to raise, not the root.
    expect(child.usage?.budget_stop).toContain(`arbor budget ${child.session_id} `);
    expect(done.last_message?.content).toContain('"content":"The token budget is spent: this sub-agent has used 100 tokens');
    expect(done.usage?.tree?.total_tokens).toBe(100);
  });
});
