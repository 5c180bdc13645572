/**
 * A conversation that outgrows the model's context window (issue 9, limit probes): the fake model refuses requests
 * over its window as OpenAI does, with a 400 `context_length_exceeded`. The session must go on answering, sending
 * the model a conversation that fits, and keep its own transcript whole.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { FakeReply, RecordedRequest } from '../support/fake-openai.js';
import { faultWorker } from './fault-worker.js';
import { requestChars, windowedModel } from '../support/windowed-model.js';

/** The fake model's window, in characters of request body; it counts four characters a token. */
const windowChars = 140_000;
const leftOutNote = /\(\d+ earlier messages? of this conversation (?:was|were) left out to fit the model's context window\.\)$/;
const cutMarker = /\n\[… \d+ characters left out to fit the model's context window …\]\n/;

/** A model with a context window of `windowChars`: over it, OpenAI's refusal; within it, `answer`. */
function windowed(answer: string, window = windowChars): (request: RecordedRequest) => FakeReply {
  return windowedModel(window, () => ({ content: answer }));
}

function userContents(request: RecordedRequest): string[] {
  return request.body.messages.filter((message) => message.role === 'user').map((message) => message.content ?? '');
}

function systemPrompt(request: RecordedRequest): string {
  return request.body.messages[0]?.role === 'system' ? (request.body.messages[0].content ?? '') : '';
}

describe('a conversation longer than the model context window, learned from the refusal', () => {
  // Summaries off: this is the rule that applies without them (and when a summary call fails).
  const harness = faultWorker('sk-context-window', { summaries: false });
  const { fake, model } = harness;

  it('fits the conversation after one refusal, keeping the instruction and the latest message, and never sends too much again', async () => {
    const instruction = `long reading ${randomUUID()}`;
    const tag = `chapter-${randomUUID().slice(0, 8)}`;
    model.script(instruction, ...Array.from({ length: 10 }, () => windowed('Noted.')));
    const session = await harness.client.startSession({ instruction });
    await session.waitUntilIdle({ timeoutMs: 30_000 });

    for (let index = 0; index < 4; index++) {
      const messageId = await session.send(`${tag} ${index} `.padEnd(50_000, 'chapter text '));
      const snapshot = await session.waitUntilIdle({ messageId, timeoutMs: 60_000 });
      expect(snapshot.last_error).toBeNull();
      expect(snapshot.last_message).toMatchObject({ role: 'assistant', content: 'Noted.' });
    }

    const requests = fake.requestsFor(instruction);
    const refused = requests.filter((request) => requestChars(request) > windowChars);
    const answered = requests.filter((request) => requestChars(request) <= windowChars);
    // The third chapter made the conversation too long once; from then on the worker knew the window.
    expect(refused).toHaveLength(1);
    expect(answered).toHaveLength(5);
    for (const request of answered.slice(3)) {
      expect(userContents(request)[0]).toBe(instruction);
      expect(
        userContents(request)
          .at(-1)!
          .startsWith(`${tag} ${answered.indexOf(request) - 1} `),
      ).toBe(true);
      expect(systemPrompt(request)).toMatch(leftOutNote);
    }
    expect(systemPrompt(answered[2]!)).not.toMatch(leftOutNote);

    // The session's own transcript lost nothing, and the history says which calls were fitted.
    const transcript = await session.transcript();
    expect(transcript.filter((entry) => entry.role === 'user' && entry.content.startsWith(tag))).toHaveLength(4);
    const replies = (await harness.runHistories(session.id))
      .flat()
      .flatMap((event) => {
        const data = event.activityTaskCompletedEventAttributes?.result?.payloads?.[0]?.data;
        return data ? [JSON.parse(Buffer.from(data).toString('utf8')) as { context_fitted?: { left_out_messages: number } }] : [];
      })
      .filter((reply) => 'context_fitted' in reply);
    expect(replies).toHaveLength(2);
    for (const reply of replies) expect(reply.context_fitted!.left_out_messages).toBeGreaterThan(0);
    expect(await harness.workflowTaskFailures(session.id)).toEqual([]);
  });

  it('ends the turn with a clear message when the model refuses every fitted request, and answers the next message', async () => {
    const instruction = `stubborn window ${randomUUID()}`;
    const tooLong: FakeReply = {
      status: 400,
      body: { error: { message: 'Too many tokens in the request', type: 'invalid_request_error', code: null } },
    };
    model.script(instruction, tooLong, tooLong, tooLong, tooLong, { content: 'Now it fits.' });
    // Its own model name: what the worker learns about one model's window is not used for another.
    const session = await harness.client.startSession({ instruction, model: 'stubborn-model' });
    const failed = await session.waitUntilIdle({ timeoutMs: 60_000 });
    expect(failed.last_error).toMatch(
      /^The model call failed: the model endpoint refused the request \(400 Too many tokens in the request\); the conversation was fitted to the model's context window 3 times \(the last time with 0 earlier messages left out and [\d,]+ characters cut\) and still did not fit/,
    );
    // One request and three fitted ones, none of them retried by Temporal.
    expect(fake.requestsFor(instruction)).toHaveLength(4);

    const messageId = await session.send('Try again?');
    const next = await session.waitUntilIdle({ messageId, timeoutMs: 30_000 });
    expect(next.last_error).toBeNull();
    expect(next.last_message).toMatchObject({ role: 'assistant', content: 'Now it fits.' });
    expect(await harness.workflowTaskFailures(session.id)).toEqual([]);
  });
});

describe('a conversation longer than the model context window, configured with ARBOR_MODEL_CONTEXT_TOKENS', () => {
  // The fake counts four characters a token; Arbor assumes three, so what it sends fits with room to spare.
  const harness = faultWorker('sk-context-tokens', { contextTokens: windowChars / 4, summaries: false });
  const { fake, model } = harness;

  it('cuts a message larger than the whole window in its middle before sending, with no refusal at all', async () => {
    const instruction = `huge paste ${randomUUID()}`;
    model.script(instruction, ...Array.from({ length: 4 }, () => windowed('Read it.')));
    const session = await harness.client.startSession({ instruction });
    await session.waitUntilIdle({ timeoutMs: 30_000 });

    const paste = `PASTE-START ${'log line '.repeat(21_000)} PASTE-END`;
    const pasteId = await session.send(paste);
    expect((await session.waitUntilIdle({ messageId: pasteId, timeoutMs: 60_000 })).last_error).toBeNull();
    const askId = await session.send('What did the log say?');
    expect((await session.waitUntilIdle({ messageId: askId, timeoutMs: 60_000 })).last_error).toBeNull();

    const requests = fake.requestsFor(instruction);
    expect(requests).toHaveLength(3);
    for (const request of requests) expect(requestChars(request)).toBeLessThanOrEqual(windowChars);
    const sentPaste = userContents(requests[1]!).at(-1)!;
    expect(sentPaste.startsWith('PASTE-START')).toBe(true);
    expect(sentPaste.endsWith('PASTE-END')).toBe(true);
    expect(sentPaste).toMatch(cutMarker);
    // The next turn leaves the paste out rather than cut the new question.
    expect(userContents(requests[2]!)).toEqual([instruction, 'What did the log say?']);
    expect(systemPrompt(requests[2]!)).toMatch(leftOutNote);
    expect(await harness.workflowTaskFailures(session.id)).toEqual([]);
  });
});
