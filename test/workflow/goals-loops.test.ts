import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type { TranscriptEntry } from '../../src/shared/session.js';
import {
  createTestArbor,
  delayed,
  ScriptedModel,
  text,
  toolCall,
  toolCalls,
  type ModelRequest,
  type ModelStep,
  type StepUsage,
  type TestArbor,
} from '../../src/testing.js';
import { waitUntil } from '../support/wait.js';

const firings = (transcript: TranscriptEntry[]) =>
  transcript.filter((entry) => entry.role === 'user' && entry.id.startsWith('loop:')).map((entry) => entry.id);

describe('goals and loops (the testing kit on the time-skipping server)', () => {
  const model = new ScriptedModel();
  let arbor: TestArbor;
  let counter = 0;
  const unique = (label: string) => `${label} ${++counter}`;
  const goalIdOf = (request: ModelRequest) => (request.toolResults.at(-1) as { goal_id: string }).goal_id;

  beforeAll(async () => {
    arbor = await createTestArbor({ model, modelName: 'goal-model', workflowBundlePath: inject('workflowBundlePath') });
  });

  afterAll(async () => {
    await arbor?.teardown();
  });

  it('drives turns toward a goal until the model completes it, restating the condition', async () => {
    const instruction = unique('goal to completion');
    model.forInstruction(
      instruction,
      toolCall('createGoal', { condition: 'All three tests pass', max_turns: 5 }),
      text('Goal set.'),
      text('Fixed the first test.'),
      () => toolCall('completeGoal', { goal_id: goalIdOf(model.requestsFor(instruction)[1]!) }),
      text('All pass.'),
    );
    const session = await arbor.startSession({ profile: 'all', instruction });

    const snapshot = await arbor.waitUntilIdle(session);

    expect(snapshot.turn).toBe(3);
    expect(snapshot.goals).toEqual([
      expect.objectContaining({ condition: 'All three tests pass', status: 'completed', completed_turns: 2, max_turns: 5 }),
    ]);
    const continuation = model.requestsFor(instruction)[2]!.lastUserMessage;
    expect(continuation).toContain('[Goal continuation]');
    expect(continuation).toContain('All three tests pass');
    expect(continuation).toContain('(turn 2 of at most 5)');
    expect(model.requestsFor(instruction)).toHaveLength(5);
  });

  it('exhausts a goal after max_turns and stops driving', async () => {
    const instruction = unique('goal exhausted');
    model.forInstruction(
      instruction,
      toolCall('createGoal', { condition: 'Impossible', max_turns: 3 }),
      text('one'),
      text('two'),
      text('three'),
      text('never'),
    );
    const session = await arbor.startSession({ profile: 'all', instruction });

    const snapshot = await arbor.waitUntilIdle(session);

    expect(snapshot).toMatchObject({ turn: 3, goals: [{ status: 'exhausted', completed_turns: 3 }] });
    expect(model.requestsFor(instruction)).toHaveLength(4);
  });

  it('cancels a goal, and lets a user message go before a goal continuation', async () => {
    const instruction = unique('goal cancelled');
    model.forInstruction(
      instruction,
      toolCall('createGoal', { condition: 'Ship it', max_turns: 10 }),
      delayed(1_500, text('Started.')),
      (request) => text(`Saw: ${request.lastUserMessage}`),
      () => toolCall('cancelGoal', { goal_id: goalIdOf(model.requestsFor(instruction)[1]!) }),
      text('Cancelled.'),
    );
    const session = await arbor.startSession({ profile: 'all', instruction });
    await waitUntil(() => model.requestsFor(instruction).length >= 2, 30_000);
    await session.send('Stop and tell me the status');

    const snapshot = await arbor.waitUntilIdle(session);

    const requests = model.requestsFor(instruction);
    expect(snapshot.goals[0]?.status).toBe('cancelled');
    expect(requests[2]!.lastUserMessage).toBe('Stop and tell me the status');
    expect(requests[2]!.messages.some((message) => message.content?.startsWith('[Goal continuation]'))).toBe(false);
    expect(requests[3]!.lastUserMessage).toContain('[Goal continuation]');
    expect(snapshot.turn).toBe(3);
  });

  it('fires a loop every hour for seven simulated days until it expires', async () => {
    const instruction = unique('loop expiry');
    model.forInstruction(
      instruction,
      toolCall('createLoop', { prompt: 'Check the queue', interval_seconds: 3_600, max_turns: 1_000 }),
      text('Loop created.'),
      ...Array.from({ length: 167 }, () => text('Queue checked.')),
    );
    const session = await arbor.startSession({ profile: 'all', instruction });
    await arbor.waitUntilIdle(session);

    await arbor.fastForward(session, '8 days', { timeoutMs: 60_000 });

    const snapshot = await arbor.waitUntilIdle(session);
    expect(snapshot.loops[0]).toMatchObject({ status: 'exhausted', reason: 'expired', firings: 167, next_fire_at: null });
    const ids = firings(await arbor.transcript(session));
    expect(ids).toHaveLength(167);
    expect(new Set(ids).size).toBe(167);
  }, 120_000);

  it('pauses and resumes a loop with no firing lost or doubled, and completes it from its own turn', async () => {
    const instruction = unique('loop pause');
    let loopId = '';
    model.forInstruction(
      instruction,
      toolCall('createLoop', { prompt: 'Tick', interval_seconds: 60, max_turns: 10 }),
      (request) => {
        loopId = (request.toolResults.at(-1) as { loop_id: string }).loop_id;
        return text('Loop created.');
      },
      text('tick 1'),
      () => toolCall('pauseLoop', { loop_id: loopId }),
      text('Paused at tick 2.'),
      () => toolCall('resumeLoop', { loop_id: loopId }),
      text('Resumed.'),
      text('tick 3'),
      () => toolCall('completeLoop', { reason: 'Enough ticks' }),
      text('Completed.'),
    );
    const session = await arbor.startSession({ profile: 'all', instruction });
    await arbor.waitUntilIdle(session);
    // Two firings: tick 1, then the turn that pauses the loop.
    await arbor.fastForward(session, '2 minutes');
    await arbor.fastForward(session, '1 hour');
    expect((await arbor.snapshot(session)).loops[0]).toMatchObject({ status: 'paused', firings: 2 });

    await session.send('Resume the loop');
    expect((await arbor.waitUntilIdle(session)).loops[0]?.status).toBe('active');
    await arbor.fastForward(session, '5 minutes');

    const snapshot = await arbor.waitUntilIdle(session);
    expect(snapshot.loops[0]).toMatchObject({ status: 'completed', firings: 4, reason: 'Enough ticks' });
    expect(firings(await arbor.transcript(session))).toEqual([1, 2, 3, 4].map((n) => `loop:${loopId}:${n}`));
  });

  it('queues firings that come during a long turn and hands them to the next turn', async () => {
    const instruction = unique('loop behind a long turn');
    model.forInstruction(
      instruction,
      toolCalls(['createLoop', { prompt: 'Poll', interval_seconds: 10, max_turns: 2 }], ['wait', { seconds: 25, reason: 'a long job' }]),
      text('Long turn over.'),
      (request) => text(`Handled: ${request.messages.filter((message) => message.role === 'user').length - 1} firing(s)`),
    );
    const session = await arbor.startSession({ profile: 'all', instruction });
    // The first answer starts the loop and a 25-second wait in one round.
    await arbor.settle(session);
    expect((await arbor.snapshot(session)).waiting).not.toBeNull();

    await arbor.fastForward(session, '1 minute');

    const snapshot = await arbor.waitUntilIdle(session);
    expect(model.requestsFor(instruction)[1]!.toolResults[1]).toMatch(/^Waited 25 s/);
    expect(snapshot.loops[0]).toMatchObject({ status: 'exhausted', firings: 2 });
    expect(snapshot.turn).toBe(2);
    const transcript = await arbor.transcript(session);
    expect(transcript.filter((entry) => entry.role === 'user' && entry.turn === 2).map((entry) => entry.id)).toHaveLength(2);
    expect(snapshot.last_message?.content).toBe('Handled: 2 firing(s)');
  });

  it('holds cron firings at a spent budget without a model call, says so once, and fires again once the budget is raised', async () => {
    const instruction = unique('cron at the budget');
    const spend = (step: ModelStep): ModelStep => ({ ...step, usage: { prompt_tokens: 50, completion_tokens: 10 } satisfies StepUsage });
    model.forInstruction(
      instruction,
      spend(toolCall('CronCreate', { cron: '*/10 * * * *', prompt: 'Check the queue' })),
      spend(text('Scheduled.')),
      text('Checked once more.'),
      text('Checked again.'),
    );
    const session = await arbor.startSession({ profile: 'all', instruction, max_tokens: 100 });
    await arbor.waitUntilIdle(session);

    // Six firings in the hour, at 120 of 100 tokens: none starts a turn or asks the model.
    await arbor.fastForward(session, '1 hour');
    const held = await arbor.waitUntilIdle(session);
    expect(model.requestsFor(instruction)).toHaveLength(2);
    expect(held.cron_jobs).toMatchObject([{ firings: 6 }]);
    expect(held.usage?.budget_stop).toMatch(/^The token budget is spent: this session's tree has used 120 tokens of its max_tokens 100\./);
    const transcript = await arbor.transcript(session);
    expect(transcript.filter((entry) => entry.id.startsWith('cron:'))).toEqual([]);
    const notices = transcript.filter((entry) => entry.role === 'notice').map((entry) => entry.content);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/^\[Cron [^\]]+\] fired while the budget is spent: no turn was started, and cron firings are held/);

    await session.setBudget({ max_tokens: 1_000 });
    await arbor.fastForward(session, '20 minutes');
    expect(model.requestsFor(instruction)).toHaveLength(4);
    expect((await arbor.waitUntilIdle(session)).usage?.budget_stop).toBeNull();
    // Its job would go on firing as later tests skip time.
    await session.stop();
  });

  it('fires a cron job at the minutes its expression names, and a one-shot job once', async () => {
    const instruction = unique('cron minutes');
    model.forInstruction(
      instruction,
      toolCalls(
        ['CronCreate', { cron: '5,35 * * * *', prompt: 'Report the queue' }],
        ['CronCreate', { cron: '50 * * * *', prompt: 'Once', recurring: false }],
      ),
      text('Scheduled.'),
      ...Array.from({ length: 7 }, () => text('Reported.')),
    );
    const session = await arbor.startSession({ profile: 'all', instruction });
    expect((await arbor.waitUntilIdle(session)).cron_jobs).toHaveLength(2);
    const [recurring] = model.requestsFor(instruction)[1]!.toolResults as { id: string }[];
    expect(recurring).toMatchObject({ human_schedule: 'At 5 and 35 minutes past the hour (UTC)', recurring: true, durable: true });

    await arbor.fastForward(session, '3 hours');

    const snapshot = await arbor.waitUntilIdle(session);
    expect(snapshot.cron_jobs).toHaveLength(1);
    expect(snapshot.cron_jobs[0]?.firings).toBe(6);
    const fired = (await arbor.transcript(session)).filter((entry) => entry.role === 'user' && entry.id.startsWith('cron:'));
    const times = fired.filter((entry) => entry.id.startsWith(`cron:${recurring!.id}:`)).map((entry) => new Date(entry.created_at));
    for (const time of times) expect([5, 35]).toContain(time.getUTCMinutes());
    expect(times.slice(1).map((time, index) => Math.round((time.getTime() - times[index]!.getTime()) / 60_000))).toEqual([
      30, 30, 30, 30, 30,
    ]);
    expect(fired.filter((entry) => entry.content.endsWith('] Once'))).toHaveLength(1);
  });

  it('refuses a loop faster than the deployment minimum, and completeLoop outside a loop turn', async () => {
    const instruction = unique('loop limits');
    model.forInstruction(
      instruction,
      toolCalls(['createLoop', { prompt: 'Spin', interval_seconds: 5 }], ['completeLoop', { reason: 'no loop' }]),
      text('Refused.'),
    );
    const session = await arbor.startSession({ profile: 'all', instruction });

    await arbor.waitUntilIdle(session);

    expect(model.requestsFor(instruction)[1]!.toolResults).toEqual([
      "Error: interval_seconds must be at least 10 (this deployment's minimum); got 5.",
      'Error: This turn was not started by a loop firing; use cancelLoop with a loop_id to stop a loop.',
    ]);
  });
});
