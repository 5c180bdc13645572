import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { inQueryLane, sendQueriesOneAtATime } from '../../src/client/access/query-lanes.js';

/** A query whose answer the test gives, noting when it was sent. */
function heldQuery(log: string[], name: string) {
  let answer!: (value: string) => void;
  let refuse!: (error: Error) => void;
  const answered = new Promise<string>((resolve, reject) => {
    answer = resolve;
    refuse = reject;
  });
  return {
    run: () => {
      log.push(`sent ${name}`);
      return answered;
    },
    answer: () => answer(name),
    refuse: () => refuse(new Error(`${name} refused`)),
  };
}

function oneAtATime(): Client {
  const client = {} as Client;
  sendQueriesOneAtATime(client);
  return client;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('query lanes', () => {
  it('send one workflow’s queries one at a time, in order, and another workflow’s beside them', async () => {
    const client = oneAtATime();
    const log: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((name) => heldQuery(log, name));
    const other = heldQuery(log, 'other');
    const answers = [inQueryLane(client, 'w1', a!.run), inQueryLane(client, 'w1', b!.run), inQueryLane(client, 'w1', c!.run)];
    const otherAnswer = inQueryLane(client, 'w2', other.run);
    await tick();
    expect(log).toEqual(['sent a', 'sent other']);
    a!.answer();
    await tick();
    expect(log).toEqual(['sent a', 'sent other', 'sent b']);
    // A refused query lets the next one go, and its caller gets the refusal.
    b!.refuse();
    await tick();
    expect(log.at(-1)).toBe('sent c');
    c!.answer();
    other.answer();
    expect(await Promise.allSettled(answers)).toEqual([
      { status: 'fulfilled', value: 'a' },
      { status: 'rejected', reason: new Error('b refused') },
      { status: 'fulfilled', value: 'c' },
    ]);
    expect(await otherAnswer).toBe('other');
  });

  it('send a query all the same once the one before it has gone unanswered for the release time', async () => {
    const client = oneAtATime();
    const log: string[] = [];
    const stuck = heldQuery(log, 'stuck');
    const next = heldQuery(log, 'next');
    void inQueryLane(client, 'w1', stuck.run, 50);
    const nextAnswer = inQueryLane(client, 'w1', next.run, 50);
    await tick();
    expect(log).toEqual(['sent stuck']);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(log).toEqual(['sent stuck', 'sent next']);
    next.answer();
    expect(await nextAnswer).toBe('next');
    stuck.answer();
  });

  it('keep the lanes of two clients apart', async () => {
    const log: string[] = [];
    const first = heldQuery(log, 'first');
    const second = heldQuery(log, 'second');
    void inQueryLane(oneAtATime(), 'w1', first.run);
    void inQueryLane(oneAtATime(), 'w1', second.run);
    await tick();
    expect(log).toEqual(['sent first', 'sent second']);
    first.answer();
    second.answer();
  });

  it('leave a client that was not told to send its queries side by side', async () => {
    const client = {} as Client;
    const log: string[] = [];
    const first = heldQuery(log, 'first');
    const second = heldQuery(log, 'second');
    void inQueryLane(client, 'w1', first.run);
    void inQueryLane(client, 'w1', second.run);
    await tick();
    expect(log).toEqual(['sent first', 'sent second']);
    first.answer();
    second.answer();
  });
});
