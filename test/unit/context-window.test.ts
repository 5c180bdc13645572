import { APIError } from 'openai';
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import {
  budgetAfterOverflow,
  budgetForContextTokens,
  fitToContext,
  isContextOverflow,
  messagesSize,
} from '../../src/activities/context-window.js';

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

const system: ChatMessage = { role: 'system', content: 'You are helpful.' };
const user = (content: string): ChatMessage => ({ role: 'user', content });
const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });
const calling = (id: string): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name: 'webFetch', arguments: '{"url":"https://example.com"}' } }],
});
const result = (id: string, content: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content });
const text = (length: number, fill = 'x') => fill.repeat(length);

function contents(messages: ChatMessage[]): unknown[] {
  return messages.map((message) => message.content);
}

function overflowError(message: string, code: string | null = 'context_length_exceeded', status = 400): APIError {
  return APIError.generate(status, { error: { message, type: 'invalid_request_error', code } }, undefined, new Headers());
}

describe('fitToContext', () => {
  it('sends a conversation within the budget as it is', () => {
    const messages = [system, user('hello'), assistant('hi')];
    const fitted = fitToContext(messages, 10_000);
    expect(fitted).toEqual({ messages, leftOut: 0, cutCharacters: 0 });
  });

  it('leaves out the oldest messages, keeps the instruction and the latest request, and says so in the system prompt', () => {
    const messages = [
      system,
      user('instruction'),
      assistant(text(3_000)),
      user(text(3_000, 'o')),
      assistant(text(3_000)),
      user('latest'),
      assistant('working on it'),
    ];
    const fitted = fitToContext(messages, 3_000);
    expect(contents(fitted.messages).slice(1)).toEqual(['instruction', 'latest', 'working on it']);
    expect(fitted.leftOut).toBe(3);
    expect(fitted.cutCharacters).toBe(0);
    expect(fitted.messages[0]).toEqual({
      role: 'system',
      content: "You are helpful.\n\n(3 earlier messages of this conversation were left out to fit the model's context window.)",
    });
    expect(messagesSize(fitted.messages)).toBeLessThanOrEqual(3_000);
    // With room for one more, the newest of the older messages is the one kept.
    expect(contents(fitToContext(messages, 4_000).messages).slice(1)).toEqual(['instruction', text(3_000), 'latest', 'working on it']);
  });

  it('keeps the newest tool rounds of the current turn before older turns, each call with its results', () => {
    const messages = [
      system,
      user('instruction'),
      assistant(text(2_000)),
      user('latest'),
      calling('a'),
      result('a', text(2_000, 'a')),
      calling('b'),
      result('b', text(1_000, 'b')),
      calling('c'),
      result('c', 'small'),
    ];
    const fitted = fitToContext(messages, 2_000);
    expect(fitted.messages.map((message) => message.role)).toEqual(['system', 'user', 'user', 'assistant', 'tool', 'assistant', 'tool']);
    expect(
      fitted.messages.filter((message) => message.role === 'tool').map((message) => (message as { tool_call_id: string }).tool_call_id),
    ).toEqual(['b', 'c']);
    expect(fitted.leftOut).toBe(3);
  });

  it('never sends a tool result without the call it answers', () => {
    const messages = [system, user('go'), calling('a'), result('a', text(5_000)), calling('b'), result('b', 'ok')];
    const fitted = fitToContext(messages, 1_000);
    const sentResults = fitted.messages
      .filter((message) => message.role === 'tool')
      .map((message) => (message as { tool_call_id: string }).tool_call_id);
    const sentCalls = fitted.messages.flatMap((message) =>
      message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.id) : [],
    );
    expect(sentResults).toEqual(sentCalls);
    expect(sentResults).toEqual(['b']);
  });

  it('cuts the middle of what must be sent when even that is over the budget, and marks the cut', () => {
    const messages = [system, user('instruction'), calling('a'), result('a', `${text(20_000, 'h')}${text(20_000, 't')}`)];
    const fitted = fitToContext(messages, 5_000);
    expect(fitted.leftOut).toBe(0);
    const sent = fitted.messages.at(-1)!.content as string;
    expect(sent.startsWith('hhh')).toBe(true);
    expect(sent.endsWith('ttt')).toBe(true);
    expect(sent).toMatch(/\[… \d+ characters left out to fit the model's context window …\]/);
    expect(fitted.cutCharacters).toBe(40_000 - sent.length);
    expect(messagesSize(fitted.messages)).toBeLessThanOrEqual(5_000);
    expect(fitted.messages[1]).toEqual(user('instruction'));
  });

  it('adds a system message for the note when the conversation has none', () => {
    const fitted = fitToContext([user('first'), assistant(text(5_000)), user('second')], 1_000);
    expect(fitted.messages[0]).toEqual({
      role: 'system',
      content: "(1 earlier message of this conversation was left out to fit the model's context window.)",
    });
    expect(contents(fitted.messages).slice(1)).toEqual(['first', 'second']);
  });
});

describe('budgetAfterOverflow', () => {
  it("scales the request to 85% of OpenAI's stated limit when the refusal gives both figures", () => {
    const error = overflowError(
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 160000 tokens. Please reduce the length of the messages.",
    );
    expect(budgetAfterOverflow(error, 640_000)).toBe(Math.floor((640_000 * 128_000 * 0.85) / 160_000));
  });

  it("reads Anthropic's form of the figures", () => {
    const error = overflowError('prompt is too long: 210000 tokens > 200000 maximum', null);
    expect(budgetAfterOverflow(error, 840_000)).toBe(Math.floor((840_000 * 200_000 * 0.85) / 210_000));
  });

  it('uses the stated limit alone when the refusal gives no count, never more than 80% of what was sent', () => {
    const limitOnly = overflowError('the context length of 8192 tokens was exceeded', null);
    expect(budgetAfterOverflow(limitOnly, 100_000)).toBe(budgetForContextTokens(8192));
    expect(budgetAfterOverflow(limitOnly, 20_000)).toBe(16_000);
  });

  it('asks for 60% of what was sent when the refusal gives no figures', () => {
    expect(isContextOverflow(overflowError('Too many tokens in the request', null))).toBe(true);
    expect(budgetAfterOverflow(overflowError('Too many tokens in the request', null), 50_000)).toBe(30_000);
    expect(budgetAfterOverflow(APIError.generate(413, { error: { message: 'Payload Too Large' } }, undefined, new Headers()), 50_000)).toBe(
      30_000,
    );
  });

  it('leaves every other refusal alone', () => {
    expect(isContextOverflow(overflowError('Invalid model', null))).toBe(false);
    expect(isContextOverflow(overflowError('maximum context length is 10 tokens', null, 500))).toBe(false);
    expect(isContextOverflow(new Error('maximum context length'))).toBe(false);
    expect(isContextOverflow(overflowError('Invalid API key', 'invalid_api_key', 401))).toBe(false);
  });

  it('recognises the refusal by its code alone', () => {
    expect(isContextOverflow(overflowError('Request too large', 'context_length_exceeded'))).toBe(true);
  });
});
