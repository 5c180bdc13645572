import type OpenAI from 'openai';
import type { TranscriptEntry } from '../shared/session.js';

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** The transcript as chat-completion messages. Error and notice entries are for people and are left out. */
export function toChatMessages(systemPrompt: string, transcript: readonly TranscriptEntry[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (systemPrompt) messages.push({ role: 'system', content: systemPrompt });
  for (const entry of transcript) {
    switch (entry.role) {
      case 'user':
        messages.push({ role: 'user', content: entry.content });
        break;
      case 'assistant':
        messages.push({
          role: 'assistant',
          content: entry.content || null,
          ...(entry.tool_calls?.length
            ? {
                tool_calls: entry.tool_calls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        });
        break;
      case 'tool':
        messages.push({ role: 'tool', tool_call_id: entry.tool_call_id ?? '', content: entry.content });
        break;
      case 'error':
      case 'notice':
        break;
    }
  }
  return messages;
}
