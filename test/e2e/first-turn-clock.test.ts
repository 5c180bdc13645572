import { randomUUID } from 'node:crypto';
import type { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { snapshotQuery } from '../../src/shared/messages.js';
import { faultWorker } from '../faults/fault-worker.js';
import { call } from '../support/scripted-model.js';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/**
 * Whether the first workflow task recorded the prepareSession marker and nothing after it: a query answered in that
 * task while the local activity's result was pending made the server start another one, in which the workflow took
 * the result. That second task's time is what the live run read; a replay reads the activity's completion time.
 */
function firstTaskEndsAtMarker(events: HistoryEvent[]): boolean {
  const marker = events.findIndex((event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity');
  return marker > 0 && events[marker + 1]?.workflowTaskScheduledEventAttributes != null;
}

describe('the clock of a session’s first turn (dev server, in-process workers, fake model)', () => {
  const harness = faultWorker('sk-first-turn-clock', { startWorker: false });

  it('is the same live and on replay when a query meets the first workflow task, and so are the times of what the turn recorded', async () => {
    const { client, model } = harness;

    /**
     * One session started with no worker polling and queried at once, so the query goes out with its first workflow
     * task, then run to idle. Whether that task ends at the marker depends on when the local activity's result comes
     * back against the query's answer, which the loaded machine's timing decides.
     */
    const startQueriedAtOnce = async () => {
      const instruction = `first turn clock ${randomUUID()}`;
      model.script(instruction, call('todoWrite', { todos: [{ content: 'Look around', status: 'in_progress' }] }), { content: 'Done.' });
      const session = await client.startSession({ instruction });
      const handle = client.temporal.workflow.getHandle(session.id);
      const firstQuery = handle.query(snapshotQuery);
      const live = await (
        await harness.createWorker()
      ).runUntil(async () => {
        await firstQuery;
        await session.waitUntilIdle({ timeoutMs: 60_000 });
        return firstTurnAsRead(session);
      });
      return { session, live, history: await handle.fetchHistory() };
    };

    /** What a reader sees of the first turn: its start, its messages' times, and its events' times. */
    const firstTurnAsRead = async (session: Awaited<ReturnType<typeof client.startSession>>) => {
      const snapshot = await session.snapshot();
      const events = [];
      for await (const event of session.events({ follow: false })) events.push(event);
      return {
        snapshot,
        times: {
          turn_started_at: snapshot.turn_started_at,
          messages: (await session.transcript()).map((entry) => `${entry.role} ${entry.created_at}`),
          events: events.map((event) => `${event.seq} ${event.type} ${event.at}`),
        },
      };
    };

    // The case under test needs the first task to end at the marker; a few sessions are tried until one does.
    let attempt = await startQueriedAtOnce();
    for (let tries = 1; tries < 5 && !firstTaskEndsAtMarker(attempt.history.events ?? []); tries++) attempt = await startQueriedAtOnce();
    const { session, live, history } = attempt;
    expect(firstTaskEndsAtMarker(history.events ?? [])).toBe(true);
    expect(live.snapshot.turn_started_at).not.toBeNull();
    expect(live.times.messages).toHaveLength(4);

    // A worker with an empty cache answers by replaying the whole history.
    const replayed = await (await harness.createWorker()).runUntil(() => firstTurnAsRead(session));
    expect(replayed.snapshot.turn).toBe(1);
    expect(replayed.times).toEqual(live.times);
    // The history replays without nondeterminism, as every later replay of it will.
    await Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history, session.id);
  });
});
