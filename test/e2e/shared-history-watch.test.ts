import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { HistoryWatch } from '../../src/client/events/history-watch.js';
import { HistoryWatches } from '../../src/client/events/shared-history-watch.js';

/** A workflow no worker runs: its history grows only by the signals the test sends it. */
describe('history watches', () => {
  let connection: Connection;
  let client: Client;

  beforeAll(async () => {
    connection = await Connection.connect({ address: inject('temporalAddress') });
    client = new Client({ connection });
  });

  afterAll(async () => {
    await connection?.close();
  });

  it('give each reader every event since its last wake, a busy one and a late one included, over one poll', async () => {
    const workflowId = `shared-watch-${randomUUID()}`;
    const handle = await client.workflow.start('noWorkerRunsThis', { workflowId, taskQueue: `nobody-${workflowId}`, args: [] });
    const signalNames = (events: { workflowExecutionSignaledEventAttributes?: { signalName?: string | null } | null }[]) =>
      events.flatMap((event) =>
        event.workflowExecutionSignaledEventAttributes ? [event.workflowExecutionSignaledEventAttributes.signalName] : [],
      );
    try {
      const watches = new HistoryWatches();
      const first = watches.open(client, workflowId, handle.firstExecutionRunId);
      expect(first.seenFrom).toBe(1);
      expect(await first.next()).toBe('changed');
      const startedEvents = first.events.length;
      expect(Number(first.events[0]?.eventId)).toBe(1);

      // Joins after the first events were polled: it has every event from the next one on.
      const late = watches.open(client, workflowId, handle.firstExecutionRunId);
      expect(late.seenFrom).toBe(startedEvents + 1);

      await handle.signal('one');
      expect(await first.next()).toBe('changed');
      expect(signalNames(first.events)).toEqual(['one']);
      // The late reader was busy meanwhile; a second change comes before it waits.
      await handle.signal('two');
      expect(await first.next()).toBe('changed');
      expect(signalNames(first.events)).toEqual(['two']);
      expect(await late.next()).toBe('changed');
      expect(signalNames(late.events)).toEqual(['one', 'two']);
      expect(Number(late.events[0]?.eventId)).toBe(late.seenFrom);

      // Both wait on one long poll, and both wake with the next event.
      const waits = [first.next(), late.next()];
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(watches.polling).toBe(1);
      expect(watches.waiting).toBe(2);
      await handle.signal('three');
      expect(await Promise.all(waits)).toEqual(['changed', 'changed']);
      expect(signalNames(first.events)).toEqual(['three']);
      expect(signalNames(late.events)).toEqual(['three']);

      first.release();
      late.release();
      expect(watches.watched).toBe(0);
    } finally {
      await handle.terminate('test over');
    }
  });

  it('say a run that closed is closed after its last events, and do not read it again as a change', async () => {
    const workflowId = `closing-watch-${randomUUID()}`;
    const handle = await client.workflow.start('noWorkerRunsThis', { workflowId, taskQueue: `nobody-${workflowId}`, args: [] });
    const watch = new HistoryWatch(client, workflowId, handle.firstExecutionRunId);
    expect(await watch.next()).toBe('changed');
    const waking = watch.next();
    await handle.terminate('test over');
    expect(await waking).toBe('changed');
    expect(watch.events.at(-1)?.workflowExecutionTerminatedEventAttributes).toBeTruthy();
    // Before, each later call read the closed run from its first event again and called it a change.
    expect(await watch.next()).toBe('closed');
    expect(await watch.next()).toBe('closed');

    const shared = new HistoryWatches().open(client, workflowId, handle.firstExecutionRunId);
    expect(await shared.next()).toBe('changed');
    expect(await shared.next()).toBe('closed');
  });
});
