import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { maxModelAnswerBytes, maxToolCallNameLength, readModelReply } from '../../src/activities/model-reply.js';
import { modelAnswerTooLarge, modelTemporarilyUnavailable } from '../../src/shared/model.js';

const completion = (message: unknown) => ({ id: 'chatcmpl-1', object: 'chat.completion', choices: [{ index: 0, message }] });

function failureOf(read: () => unknown): ApplicationFailure {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(ApplicationFailure);
    return error as ApplicationFailure;
  }
  throw new Error('expected a failure');
}

describe('readModelReply', () => {
  it('reads content and function tool calls as the endpoint sent them', () => {
    const reply = readModelReply(
      completion({
        role: 'assistant',
        content: 'Hi.',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'todoWrite', arguments: '{"todos":[]}' } }],
      }),
    );
    expect(reply).toEqual({ content: 'Hi.', tool_calls: [{ id: 'call_1', name: 'todoWrite', arguments: '{"todos":[]}' }] });
  });

  it('makes a retryable failure of a body that is not a chat completion', () => {
    for (const body of ['<html>Bad gateway</html>', { error: 'nope' }, null, { choices: 'none' }]) {
      const failure = failureOf(() => readModelReply(body));
      expect(failure.type).toBe(modelTemporarilyUnavailable);
      expect(failure.nonRetryable).toBe(false);
      expect(failure.message).toMatch(/^the model endpoint answered with something that is not a chat completion: /);
    }
  });

  it('turns tool call fields of the wrong type into text the tools refuse, and names calls without an id', () => {
    const reply = readModelReply(
      completion({
        content: [
          { type: 'text', text: 'Part one. ' },
          { type: 'text', text: 'Part two.' },
        ],
        tool_calls: [
          { type: 'function', function: { name: 'planWrite', arguments: { content: 7 } } },
          { id: 'c2', function: { name: ['todoWrite'], arguments: null } },
          { id: 'c3', type: 'retrieval' },
          { id: 'c4', type: 'function', function: { name: 42, arguments: 12 } },
        ],
      }),
      'call_t3_r2',
    );
    expect(reply).toEqual({
      content: 'Part one. Part two.',
      tool_calls: [
        { id: 'call_t3_r2_0', name: 'planWrite', arguments: '{"content":7}' },
        { id: 'c2', name: '["todoWrite"]', arguments: '' },
        { id: 'c4', name: '42', arguments: '12' },
      ],
    });
  });

  it('cuts enormous tool names and call ids', () => {
    const reply = readModelReply(
      completion({
        content: null,
        tool_calls: [{ id: 'i'.repeat(10_000), type: 'function', function: { name: 'n'.repeat(100_000), arguments: '{}' } }],
      }),
    );
    expect(reply.tool_calls[0]!.name).toBe(`${'n'.repeat(maxToolCallNameLength)}…`);
    expect(reply.tool_calls[0]!.id).toBe(`${'i'.repeat(maxToolCallNameLength)}…`);
  });

  it('refuses an answer over the size limit without retrying, saying how large it was', () => {
    const failure = failureOf(() => readModelReply(completion({ content: 'x'.repeat(maxModelAnswerBytes) })));
    expect(failure.type).toBe(modelAnswerTooLarge);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toBe(
      `the model's answer has ${(maxModelAnswerBytes + 30).toLocaleString('en-US')} bytes, more than the 1,048,576 one answer may have (Temporal's payload limit is 2 MB); ask for a shorter answer or for the work in parts`,
    );
    expect(readModelReply(completion({ content: 'x'.repeat(maxModelAnswerBytes - 100) })).content).toHaveLength(maxModelAnswerBytes - 100);
  });
});
