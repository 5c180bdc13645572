import { describe, expect, it } from 'vitest';
import { toChatMessages } from '../../src/activities/chat-messages.js';
import type { TranscriptEntry } from '../../src/shared/session.js';

let n = 0;
function entry(role: TranscriptEntry['role'], content: string, extra: Partial<TranscriptEntry> = {}): TranscriptEntry {
  return { id: `e${n++}`, role, content, created_at: '2024-05-01T10:00:00.000Z', turn: 1, ...extra };
}

describe('toChatMessages', () => {
  it('puts the system prompt first', () => {
    const messages = toChatMessages('You are helpful.', [entry('user', 'hi')]);
    expect(messages[0]).toEqual({ role: 'system', content: 'You are helpful.' });
    expect(messages).toHaveLength(2);
  });

  it('leaves out the system message when the prompt is empty', () => {
    expect(toChatMessages('', [entry('user', 'hi')])).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('maps a whole tool-using exchange in order, with tool calls in OpenAI function format', () => {
    const transcript = [
      entry('user', 'Plan it'),
      entry('assistant', 'Planning.', {
        tool_calls: [
          { id: 'call_a', name: 'todoWrite', arguments: '{"todos":[]}' },
          { id: 'call_b', name: 'other', arguments: '{not json' },
        ],
      }),
      entry('tool', 'Todo list updated', { tool_call_id: 'call_a', name: 'todoWrite' }),
      entry('tool', 'Error: Unknown tool', { tool_call_id: 'call_b', name: 'other', is_error: true }),
      entry('assistant', 'Done.'),
    ];
    expect(toChatMessages('sys', transcript)).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'Plan it' },
      {
        role: 'assistant',
        content: 'Planning.',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'todoWrite', arguments: '{"todos":[]}' } },
          { id: 'call_b', type: 'function', function: { name: 'other', arguments: '{not json' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: 'Todo list updated' },
      { role: 'tool', tool_call_id: 'call_b', content: 'Error: Unknown tool' },
      { role: 'assistant', content: 'Done.' },
    ]);
  });

  it('sends an assistant entry with empty content as null content', () => {
    const messages = toChatMessages('', [entry('assistant', '', { tool_calls: [{ id: 'c', name: 't', arguments: '{}' }] })]);
    expect(messages).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 't', arguments: '{}' } }] },
    ]);
  });

  it('omits tool_calls for an assistant entry whose tool call list is empty', () => {
    const [message] = toChatMessages('', [entry('assistant', 'hi', { tool_calls: [] })]);
    expect(message).toEqual({ role: 'assistant', content: 'hi' });
    expect(message).not.toHaveProperty('tool_calls');
  });

  it('leaves out error and notice entries', () => {
    const transcript = [
      entry('user', 'hi'),
      entry('error', 'the model endpoint is unavailable'),
      entry('notice', 'session resumed'),
      entry('assistant', 'hello'),
    ];
    expect(toChatMessages('', transcript)).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ]);
  });

  it('returns only the system message for an empty transcript', () => {
    expect(toChatMessages('sys', [])).toEqual([{ role: 'system', content: 'sys' }]);
  });
});
