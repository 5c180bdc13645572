import type OpenAI from 'openai';
import type { TranscriptEntry } from '../shared/session.js';
import { entriesAfterSummary, summaryInEffect } from '../shared/compaction.js';

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/**
 * The transcript as chat-completion messages. Error and notice entries are for people and are left out. Once the
 * conversation has a summary, the entries it replaces are left out too, and the summary joins the system prompt (which
 * fitting to the context window never drops), followed by `pinnedState` when given.
 */
export function toChatMessages(systemPrompt: string, transcript: readonly TranscriptEntry[], pinnedState?: string): ChatMessage[] {
  const messages: ChatMessage[] = [];
  const summary = summaryInEffect(transcript)?.summary;
  const system = [systemPrompt, summary ? `## Summary of the earlier conversation\n${summary.content}` : '', pinnedState ?? ''].filter(
    Boolean,
  );
  if (system.length > 0) messages.push({ role: 'system', content: system.join('\n\n') });
  for (const entry of summary ? entriesAfterSummary(transcript) : transcript) {
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
      case 'summary':
        break;
    }
  }
  return messages;
}
