import { describe, expect, it } from 'vitest';
import type { SessionInput, TranscriptEntry } from '../../src/shared/session.js';
import type { RecordedRequest } from '../support/fake-openai.js';
import { call, toolResults } from '../support/scripted-model.js';
import { withWorker } from '../support/time-skipping.js';
import { scriptedTimeSkipping } from '../support/scripted-time-skipping.js';
import { waitUntil } from '../support/wait.js';
import { waitUntilSettled } from '../support/settle.js';

const lastUserMessage = (request: RecordedRequest) =>
  request.body.messages.filter((message) => message.role === 'user').at(-1)?.content ?? '';
const firings = (transcript: TranscriptEntry[]) =>
  transcript.filter((entry) => entry.role === 'user' && entry.id.startsWith('loop:')).map((entry) => entry.id);

describe('goals and loops (time-skipping server, scripted model)', () => {
  const scripted = scriptedTimeSkipping('goal-model');
  const { fake, model } = scripted;

  const start = (taskQueue: string, input: SessionInput) => scripted.start(taskQueue, input);

  const { unique } = scripted;
  /**
   * Before an `env.sleep`: waits for the model's `count`-th request, then for the session to stop moving, asking no
   * query meanwhile (one that meets a workflow task in flight can lock the test server's time skipping; see settle.ts).
   */
  const settleAfterRequests = async (instruction: string, count: number, sessionId: string) => {
    await waitUntil(() => fake.requestsFor(instruction).length >= count, 30_000);
    await waitUntilSettled(scripted.env.client, sessionId);
  };
  const goalIdOf = (request: RecordedRequest) => JSON.parse(toolResults(request).at(-1)!).goal_id as string;

  it('drives turns toward a goal until the model completes it, restating the condition', async () => {
    const instruction = unique('goal to completion');
    model.script(
      instruction,
      call('createGoal', { condition: 'All three tests pass', max_turns: 5 }),
      { content: 'Goal set.' },
      { content: 'Fixed the first test.' },
      () => call('completeGoal', { goal_id: goalIdOf(fake.requestsFor(instruction)[1]!) }),
      { content: 'All pass.' },
    );
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction });
      await waitUntil(async () => (await session.snapshot()).goals[0]?.status === 'completed', 30_000);
      const snapshot = await session.waitUntilIdle({ timeoutMs: 30_000 });
      expect(snapshot.turn).toBe(3);
      expect(snapshot.goals).toEqual([
        expect.objectContaining({ condition: 'All three tests pass', status: 'completed', completed_turns: 2, max_turns: 5 }),
      ]);
      const continuation = lastUserMessage(fake.requestsFor(instruction)[2]!);
      expect(continuation).toContain('[Goal continuation]');
      expect(continuation).toContain('All three tests pass');
      expect(continuation).toContain('(turn 2 of at most 5)');
      expect(fake.requestsFor(instruction)).toHaveLength(5);
    });
  });

  it('exhausts a goal after max_turns and stops driving', async () => {
    const instruction = unique('goal exhausted');
    model.script(
      instruction,
      call('createGoal', { condition: 'Impossible', max_turns: 3 }),
      { content: 'one' },
      { content: 'two' },
      { content: 'three' },
      { content: 'never' },
    );
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction });
      await waitUntil(async () => (await session.snapshot()).goals[0]?.status === 'exhausted', 30_000);
      const snapshot = await session.waitUntilIdle({ timeoutMs: 30_000 });
      expect(snapshot).toMatchObject({ turn: 3, goals: [{ status: 'exhausted', completed_turns: 3 }] });
      expect(fake.requestsFor(instruction)).toHaveLength(4);
    });
  });

  it('cancels a goal, and lets a user message go before a goal continuation', async () => {
    const instruction = unique('goal cancelled');
    model.script(
      instruction,
      call('createGoal', { condition: 'Ship it', max_turns: 10 }),
      { content: 'Started.', delayMs: 1_500 },
      (request) => ({ content: `Saw: ${lastUserMessage(request)}` }),
      () => call('cancelGoal', { goal_id: goalIdOf(fake.requestsFor(instruction)[1]!) }),
      { content: 'Cancelled.' },
    );
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction });
      await waitUntil(() => fake.requestsFor(instruction).length >= 2, 30_000);
      await session.send('Stop and tell me the status');
      await waitUntil(async () => (await session.snapshot()).goals[0]?.status === 'cancelled', 30_000);
      await session.waitUntilIdle({ timeoutMs: 30_000 });
      const requests = fake.requestsFor(instruction);
      expect(lastUserMessage(requests[2]!)).toBe('Stop and tell me the status');
      expect(requests[2]!.body.messages.some((message) => message.content?.startsWith('[Goal continuation]'))).toBe(false);
      expect(lastUserMessage(requests[3]!)).toContain('[Goal continuation]');
      expect((await session.snapshot()).turn).toBe(3);
    });
  });

  it('fires a loop every hour for seven simulated days until it expires', async () => {
    const instruction = unique('loop expiry');
    model.script(instruction, call('createLoop', { prompt: 'Check the queue', interval_seconds: 3_600, max_turns: 1_000 }), {
      content: 'Loop created.',
    });
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction });
      await settleAfterRequests(instruction, 2, session.id);
      await scripted.env.sleep('8 days');
      await waitUntil(async () => (await session.snapshot()).loops[0]?.status === 'exhausted', 60_000);
      const snapshot = await session.waitUntilIdle({ timeoutMs: 60_000 });
      expect(snapshot.loops[0]).toMatchObject({ status: 'exhausted', reason: 'expired', firings: 167, next_fire_at: null });
      const ids = firings(await session.transcript());
      expect(ids).toHaveLength(167);
      expect(new Set(ids).size).toBe(167);
    });
  }, 120_000);

  it('pauses and resumes a loop with no firing lost or doubled, and completes it from its own turn', async () => {
    const instruction = unique('loop pause');
    let loopId = '';
    model.script(
      instruction,
      call('createLoop', { prompt: 'Tick', interval_seconds: 60, max_turns: 10 }),
      (request) => {
        loopId = JSON.parse(toolResults(request).at(-1)!).loop_id;
        return { content: 'Loop created.' };
      },
      { content: 'tick 1' },
      () => call('pauseLoop', { loop_id: loopId }),
      { content: 'Paused at tick 2.' },
      () => call('resumeLoop', { loop_id: loopId }),
      { content: 'Resumed.' },
      { content: 'tick 3' },
      () => call('completeLoop', { reason: 'Enough ticks' }),
      { content: 'Completed.' },
    );
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction });
      await settleAfterRequests(instruction, 2, session.id);
      await scripted.env.sleep('3 minutes');
      // Two firings: tick 1, then the turn that pauses the loop.
      await settleAfterRequests(instruction, 5, session.id);
      await scripted.env.sleep('1 hour');
      await waitUntilSettled(scripted.env.client, session.id);
      expect((await session.snapshot()).loops[0]).toMatchObject({ status: 'paused', firings: 2 });
      await session.send('Resume the loop');
      await settleAfterRequests(instruction, 7, session.id);
      expect((await session.snapshot()).loops[0]?.status).toBe('active');
      await scripted.env.sleep('5 minutes');
      await waitUntil(async () => (await session.snapshot()).loops[0]?.status === 'completed', 60_000);
      const snapshot = await session.waitUntilIdle({ timeoutMs: 30_000 });
      expect(snapshot.loops[0]).toMatchObject({ status: 'completed', firings: 4, reason: 'Enough ticks' });
      expect(firings(await session.transcript())).toEqual([1, 2, 3, 4].map((n) => `loop:${loopId}:${n}`));
    });
  });

  it('queues firings that come during a long turn and hands them to the next turn', async () => {
    const instruction = unique('loop behind a long turn');
    model.script(
      instruction,
      {
        toolCalls: [
          { name: 'createLoop', arguments: JSON.stringify({ prompt: 'Poll', interval_seconds: 10, max_turns: 2 }) },
          { name: 'wait', arguments: JSON.stringify({ seconds: 25, reason: 'a long job' }) },
        ],
      },
      { content: 'Long turn over.' },
      (request) => ({ content: `Handled: ${request.body.messages.filter((message) => message.role === 'user').length - 1} firing(s)` }),
    );
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction });
      // The first answer starts the loop and a 25-second wait in one round.
      await settleAfterRequests(instruction, 1, session.id);
      expect((await session.snapshot()).waiting).not.toBeNull();
      await scripted.env.sleep('1 minute');
      await waitUntil(async () => (await session.snapshot()).turn === 2, 60_000);
      const snapshot = await session.waitUntilIdle({ timeoutMs: 30_000 });
      expect(toolResults(fake.requestsFor(instruction)[1]!)[1]).toMatch(/^Waited 25 s/);
      expect(snapshot.loops[0]).toMatchObject({ status: 'exhausted', firings: 2 });
      const transcript = await session.transcript();
      expect(transcript.filter((entry) => entry.role === 'user' && entry.turn === 2).map((entry) => entry.id)).toHaveLength(2);
      expect(snapshot.last_message?.content).toBe('Handled: 2 firing(s)');
    });
  });

  it('fires a cron job at the minutes its expression names, and a one-shot job once', async () => {
    const instruction = unique('cron minutes');
    model.script(
      instruction,
      {
        toolCalls: [
          { name: 'CronCreate', arguments: JSON.stringify({ cron: '5,35 * * * *', prompt: 'Report the queue' }) },
          { name: 'CronCreate', arguments: JSON.stringify({ cron: '50 * * * *', prompt: 'Once', recurring: false }) },
        ],
      },
      { content: 'Scheduled.' },
    );
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction });
      await settleAfterRequests(instruction, 2, session.id);
      expect((await session.snapshot()).cron_jobs).toHaveLength(2);
      const [recurring] = toolResults(fake.requestsFor(instruction)[1]!).map((result) => JSON.parse(result));
      expect(recurring).toMatchObject({ human_schedule: 'At 5 and 35 minutes past the hour (UTC)', recurring: true, durable: true });
      await scripted.env.sleep('3 hours');
      await waitUntil(async () => (await session.snapshot()).cron_jobs[0]?.firings === 6, 60_000);
      const snapshot = await session.waitUntilIdle({ timeoutMs: 30_000 });
      expect(snapshot.cron_jobs).toHaveLength(1);
      const fired = (await session.transcript()).filter((entry) => entry.role === 'user' && entry.id.startsWith('cron:'));
      const recurringFirings = fired.filter((entry) => entry.id.startsWith(`cron:${recurring.id}:`));
      const times = recurringFirings.map((entry) => new Date(entry.created_at));
      for (const time of times) expect([5, 35]).toContain(time.getUTCMinutes());
      expect(times.slice(1).map((time, index) => Math.round((time.getTime() - times[index]!.getTime()) / 60_000))).toEqual([
        30, 30, 30, 30, 30,
      ]);
      expect(fired.filter((entry) => entry.content.endsWith('] Once'))).toHaveLength(1);
    });
  });

  it('refuses a loop faster than the deployment minimum, and completeLoop outside a loop turn', async () => {
    const instruction = unique('loop limits');
    model.script(
      instruction,
      {
        toolCalls: [
          { name: 'createLoop', arguments: JSON.stringify({ prompt: 'Spin', interval_seconds: 5 }) },
          { name: 'completeLoop', arguments: JSON.stringify({ reason: 'no loop' }) },
        ],
      },
      { content: 'Refused.' },
    );
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await start(taskQueue, { instruction });
      await session.waitUntilIdle({ timeoutMs: 30_000 });
      expect(toolResults(fake.requestsFor(instruction)[1]!)).toEqual([
        "Error: interval_seconds must be at least 10 (this deployment's minimum); got 5.",
        'Error: This turn was not started by a loop firing; use cancelLoop with a loop_id to stop a loop.',
      ]);
    });
  });
});
