import { describe, expect, it } from 'vitest';
import { ScriptedModel, text, toolCall } from '../../src/testing.js';

const request = (...users: string[]) => ({ model: 'm', messages: users.map((content) => ({ role: 'user', content })) });
const contentOf = (answer: { body: string }) => JSON.parse(answer.body).choices[0].message.content as string | null;

describe('the scripted model', () => {
  it('answers each session from the script of its instruction, in order, and the rest from the main script', async () => {
    const model = new ScriptedModel([text('main 1')]).forInstruction('A', text('A 1'), text('A 2'));

    expect(contentOf(await model.answer(request('A')))).toBe('A 1');
    expect(contentOf(await model.answer(request('B')))).toBe('main 1');
    expect(contentOf(await model.answer(request('A', 'more')))).toBe('A 2');
    expect(model.requestsFor('A').map((recorded) => recorded.number)).toEqual([1, 3]);
    expect(model.remainingSteps).toBe(0);
  });

  it('keeps a session on the script it started with once its transcript no longer begins with its instruction', async () => {
    const model = new ScriptedModel().forInstruction('Loop for long', text('first'), text('after the trim'));

    await model.answer(request('Loop for long'), 'session-1');
    const later = await model.answer(request('[Loop loop-1, firing 400 of at most 999] Tick'), 'session-1');

    expect(contentOf(later)).toBe('after the trim');
    expect(model.requests.map((recorded) => [recorded.sessionId, recorded.instruction])).toEqual([
      ['session-1', 'Loop for long'],
      ['session-1', 'Loop for long'],
    ]);
  });

  it('answers a request with no step left with an HTTP 400 and keeps the problem to throw once', async () => {
    const model = new ScriptedModel().forInstruction('Short', toolCall('todoWrite', { todos: [] }));
    await model.answer(request('Short'));

    const answer = await model.answer(request('Short', 'again'));

    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error.message).toContain('request #2');
    expect(() => model.assertNoProblems()).toThrow(/found no step left in the script for instruction "Short"/);
    expect(() => model.assertNoProblems()).not.toThrow();
    expect(model.problems).toHaveLength(1);
  });

  it('sends tool call arguments as JSON, or as written when they are a string', async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: 'a', arguments: { x: 1 } },
          { name: 'b', arguments: '{not json' },
        ],
      },
    ]);

    const calls = JSON.parse((await model.answer(request('x'))).body).choices[0].message.tool_calls;

    expect(calls.map((call: { function: unknown }) => call.function)).toEqual([
      { name: 'a', arguments: '{"x":1}' },
      { name: 'b', arguments: '{not json' },
    ]);
  });
});
