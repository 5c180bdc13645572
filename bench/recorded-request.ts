/**
 * A floor's model call that sends a request Arbor's session sent, byte for byte, and reads the answer as Arbor does:
 * a streamed request (Arbor streams by default) is read to its end, chunk by chunk.
 */
import type OpenAI from 'openai';

export interface RecordedReply {
  content: string | null;
  tool_calls: { id: string; name: string; arguments: string }[];
}

export async function recordedRequestReply(openai: OpenAI, body: OpenAI.Chat.ChatCompletionCreateParams): Promise<RecordedReply> {
  if (!body.stream) {
    const reply = await openai.chat.completions.create(body);
    const message = reply.choices[0]?.message;
    return {
      content: message?.content ?? null,
      tool_calls: (message?.tool_calls ?? []).flatMap((call) =>
        call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [],
      ),
    };
  }
  let content: string | null = null;
  const calls: { id: string; name: string; arguments: string }[] = [];
  for await (const chunk of await openai.chat.completions.create(body)) {
    const delta = chunk.choices[0]?.delta;
    if (delta?.content) content = (content ?? '') + delta.content;
    for (const call of delta?.tool_calls ?? []) {
      const entry = (calls[call.index] ??= { id: '', name: '', arguments: '' });
      if (call.id) entry.id = call.id;
      if (call.function?.name) entry.name += call.function.name;
      if (call.function?.arguments) entry.arguments += call.function.arguments;
    }
  }
  return { content, tool_calls: calls.filter(Boolean) };
}
