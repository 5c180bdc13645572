/**
 * Fault injection, model side (issue 9, item 4): the fake OpenAI-compatible server answers with rate limits, server
 * errors, connection resets, answers slower than the request timeout, malformed bodies and refusals. The real openai
 * client, the real callModel activity and Temporal's retry policy on the dev server decide what happens; each session
 * must then answer the next message.
 */
import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import type { FakeReply } from '../support/fake-openai.js';
import { faultWorker } from './fault-worker.js';

/** Short, so an answer slower than it fails the attempt quickly. */
const modelTimeoutMs = 1_000;

describe('model faults from an OpenAI-compatible endpoint (dev server, fake model)', () => {
  const harness = faultWorker('sk-model-faults', { modelTimeoutMs });
  const { fake, model } = harness;

  /** Starts a session whose model calls get `steps` in order, and waits for its first turn to end. */
  async function firstTurn(label: string, ...steps: FakeReply[]) {
    const instruction = `${label} ${randomUUID()}`;
    model.script(instruction, ...steps);
    const session = await harness.client.startSession({ instruction });
    const snapshot = await session.waitUntilIdle({ timeoutMs: 60_000 });
    return { instruction, session, snapshot, requests: () => fake.requestsFor(instruction) };
  }

  /** The attempt on which the session's n-th model call (1-based) completed or finally failed. */
  async function attempts(sessionId: string): Promise<number[]> {
    const events = (await harness.runHistories(sessionId)).flat();
    return events.flatMap((event) =>
      event.activityTaskStartedEventAttributes ? [Number(event.activityTaskStartedEventAttributes.attempt)] : [],
    );
  }

  it.concurrent(
    'ends the turn with a clear message when a 503 lasts through every attempt, then answers the next message',
    async ({ expect }) => {
      // retry-after-ms keeps the ten attempts quick; the retry policy still counts them.
      const unavailable: FakeReply = {
        status: 503,
        headers: { 'retry-after-ms': '1' },
        body: { error: { message: 'The server is overloaded', type: 'server_error' } },
      };
      const { session, snapshot, requests } = await firstTurn('persistent 503', ...Array.from({ length: 10 }, () => unavailable), {
        content: 'Back again.',
      });
      expect(snapshot.status).toBe('idle');
      expect(snapshot.last_error).toBe('The model call failed: the model endpoint is unavailable (503 The server is overloaded)');
      expect(requests()).toHaveLength(10);
      expect(await attempts(session.id)).toEqual([10]);

      const messageId = await session.send('And now?');
      const next = await session.waitUntilIdle({ messageId, timeoutMs: 30_000 });
      expect(next.last_message).toMatchObject({ role: 'assistant', content: 'Back again.' });
      expect(await harness.workflowTaskFailures(session.id)).toEqual([]);
    },
  );

  const retried: { fault: string; reply: FakeReply; minGapMs?: number }[] = [
    {
      fault: 'a 429 after its Retry-After',
      reply: { status: 429, headers: { 'retry-after': '2' }, body: { error: { message: 'Rate limit reached', type: 'rate_limit' } } },
      // Temporal's own first backoff is 1 s; the provider asked for 2.
      minGapMs: 1_900,
    },
    // Temporal would end the retries at a zero delay; the policy's own backoff is used instead.
    {
      fault: 'a 503 whose Retry-After is zero',
      reply: { status: 503, headers: { 'retry-after': '0' }, body: { error: { message: 'overloaded', type: 'server_error' } } },
    },
    { fault: 'a 500', reply: { status: 500, body: { error: { message: 'internal error', type: 'server_error' } } } },
    { fault: 'a 503', reply: { status: 503, body: { error: { message: 'overloaded', type: 'server_error' } } } },
    { fault: 'a connection reset', reply: { reset: true } },
    { fault: 'an answer slower than the request timeout', reply: { content: 'too late', delayMs: modelTimeoutMs * 3 } },
    {
      fault: 'a body that is not valid JSON',
      reply: { raw: '{"id": "chatcmpl-cut", "object": "chat.completion", "choices": [{"index": 0, "mess' },
    },
    {
      fault: 'a 200 answer that is not a chat completion',
      reply: { raw: '<html><body>Bad gateway</body></html>', contentType: 'text/html' },
    },
  ];

  for (const { fault, reply, minGapMs } of retried)
    it.concurrent(`retries ${fault}, answers, and then answers the next message`, async ({ expect }) => {
      const { session, snapshot, requests } = await firstTurn(fault, reply, { content: 'First answer.' }, { content: 'Second answer.' });
      expect(snapshot.status).toBe('idle');
      expect(snapshot.last_error).toBeNull();
      expect(snapshot.last_message).toMatchObject({ role: 'assistant', content: 'First answer.' });
      expect((await session.transcript()).map((entry) => entry.role)).toEqual(['user', 'assistant']);
      expect(requests()).toHaveLength(2);
      if (minGapMs) expect(requests()[1]!.at - requests()[0]!.at).toBeGreaterThanOrEqual(minGapMs);
      expect(await attempts(session.id)).toEqual([2]);

      const messageId = await session.send('Are you still there?');
      const next = await session.waitUntilIdle({ messageId, timeoutMs: 30_000 });
      expect(next).toMatchObject({ status: 'idle', turn: 2, last_error: null });
      expect(next.last_message).toMatchObject({ role: 'assistant', content: 'Second answer.' });
      expect(await harness.workflowTaskFailures(session.id)).toEqual([]);
      expect(await harness.workflowStatus(session.id)).toBe('RUNNING');
    });

  // Every refused status maps the same way (test/unit/model-errors.test.ts); these are the ones providers send most.
  const refused = [
    // (A 400 for a conversation longer than the context window is fitted and asked again: test/faults/context-window.test.ts.)
    { status: 400, reason: "Invalid schema for function 'webFetch': schema must be a JSON Schema of 'type: \"object\"'" },
    { status: 401, reason: 'Incorrect API key provided' },
    { status: 404, reason: 'The model `fake-model` does not exist' },
  ];

  for (const { status, reason } of refused) {
    it.concurrent(
      `ends the turn on a ${status} with the provider’s reason and no retry, then answers the next message`,
      async ({ expect }) => {
        const { session, snapshot, requests } = await firstTurn(
          `refused ${status}`,
          { status, body: { error: { message: reason, type: 'invalid_request_error' } } },
          { content: 'Recovered.' },
        );
        expect(snapshot.status).toBe('idle');
        // A 404 names the model: most often one the endpoint does not serve.
        const refusal =
          status === 404
            ? `the model endpoint answered 404 for model "fake-model": it does not serve that model, or OPENAI_BASE_URL is not its API root`
            : 'the model endpoint refused the request';
        expect(snapshot.last_error).toBe(`The model call failed: ${refusal} (${status} ${reason})`);
        expect(snapshot.last_message).toMatchObject({ role: 'error', content: snapshot.last_error });
        expect(requests()).toHaveLength(1);
        expect(await attempts(session.id)).toEqual([1]);

        const messageId = await session.send('Try again.');
        const next = await session.waitUntilIdle({ messageId, timeoutMs: 30_000 });
        expect(next).toMatchObject({ status: 'idle', last_error: null });
        expect(next.last_message).toMatchObject({ role: 'assistant', content: 'Recovered.' });
        // The error entry is for people: the model sees the conversation without it.
        expect(requests()[1]!.body.messages.map((message) => message.role)).toEqual(['system', 'user', 'user']);
        expect(await harness.workflowTaskFailures(session.id)).toEqual([]);
      },
    );
  }
});
