/**
 * Fault injection, messages that race a continue-as-new (issue 23, item 4): a stream of user messages into a session
 * whose runs are short (history limit 100), so that messages keep reaching the server while the workflow task that
 * continues as new is in flight. Temporal fails such a task with `UnhandledCommand` and retries it with the message;
 * the session then handles the message in the same run and continues as new at its next point (until the run has 1.5
 * times its limit), so the retry, which replays the whole run, never races the next message with a continue-as-new
 * of its own, and no message is lost or handled twice. The failures are counted (bench/RESULTS.md, Fault injection, 7).
 *
 * ARBOR_FAULT_SCALE=full (npm run test:faults) streams 1,000 messages; the default (npm test) 300.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import proto from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { faultSettings, seededRandom } from '../support/fault-settings.js';
import type { HistoryEvent } from '../support/run-histories.js';
import { faultWorker } from './fault-worker.js';

const { full, seed } = faultSettings();
const unhandledCommand = proto.temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND;

/** The outcomes of a run's workflow tasks in order: `completed`, or the cause of a failure. */
function taskOutcomes(events: HistoryEvent[]): string[] {
  return events.flatMap((event) => {
    if (event.workflowTaskCompletedEventAttributes) return ['completed'];
    const failed = event.workflowTaskFailedEventAttributes;
    if (failed) return [failed.cause === unhandledCommand ? 'unhandled-command' : `failed-${failed.cause ?? 0}`];
    return event.workflowTaskTimedOutEventAttributes ? ['timed-out'] : [];
  });
}

describe('messages that race a continue-as-new (dev server, fake model)', () => {
  const harness = faultWorker('sk-can-race');
  const { fake, model } = harness;

  it(`handles each of a stream of ${full ? 1_000 : 300} messages once across many continue-as-new points, and continues as new only after handling a message that raced it`, async () => {
    const count = full ? 1_000 : 300;
    const instruction = `race ${randomUUID()}`;
    const tag = `race-${randomUUID().slice(0, 8)}`;
    model.script(instruction, ...Array.from({ length: count + 1 }, () => ({ content: 'Noted.' })));
    const session = await harness.client.startSession({ instruction, history_limit: 100 });
    await session.waitUntilIdle({ timeoutMs: 30_000 });

    // A stream, not a burst: each message a few milliseconds after the last, so some land while a task is in flight.
    const random = seededRandom(seed);
    const sends: Promise<string>[] = [];
    for (let index = 0; index < count; index++) {
      sends.push(session.send(`${tag} message ${index}`));
      await sleep(Math.floor(random() * 15));
    }
    const ids = await Promise.all(sends);
    await session.waitUntilIdle({ messageId: ids.at(-1)!, timeoutMs: 180_000 });
    expect((await session.waitUntilIdle({ timeoutMs: 60_000 })).last_error).toBeNull();

    // Every message reached the model, and no conversation the model saw held one twice.
    const seen = new Set<number>();
    // Every request of this session: once its transcript passes 400 entries, a continue-as-new compacts the instruction
    // away, so later requests no longer begin with it; the stream's tag finds them.
    for (const request of fake.requests) {
      const streamed = request.body.messages
        .filter((message) => message.role === 'user' && message.content?.startsWith(tag))
        .map((message) => Number(message.content!.split(' ').at(-1)));
      expect(new Set(streamed).size).toBe(streamed.length);
      for (const index of streamed) seen.add(index);
    }
    expect(seen.size, `seed ${seed}`).toBe(count);

    const runs = await harness.runHistories(session.id);
    const outcomes = runs.map(taskOutcomes);
    const races = outcomes.flat().filter((outcome) => outcome === 'unhandled-command').length;
    console.info(`[can-race] seed ${seed}: ${runs.length} runs, ${races} workflow tasks failed with UnhandledCommand`);
    if (process.env.ARBOR_CAN_RACE_TRACE)
      for (const [index, run] of outcomes.entries()) console.info(`[can-race] ${runs[index]!.length} events: ${run.slice(-6).join(' ')}`);
    expect(runs.length).toBeGreaterThanOrEqual(4);
    expect(outcomes.flat().filter((outcome) => outcome !== 'completed' && outcome !== 'unhandled-command')).toEqual([]);
    for (const [index, run] of outcomes.slice(0, -1).entries()) {
      // A run past 1.5 times its limit continues as new at its next point, message or not (a flood cannot keep it open).
      if (runs[index]!.length >= 150) continue;
      // A run ends with the task that continued as new; the task before it, if it failed, lost no message to it.
      expect(run.at(-2), `run ${index + 1} of ${runs.length}: ${run.slice(-4).join(', ')}`).not.toBe('unhandled-command');
      // A raced task's retry handles the message and completes with the next turn's commands, which no message can fail.
      expect(run.join(' '), `run ${index + 1}`).not.toContain('unhandled-command unhandled-command');
    }
  }, 600_000);
});
