import type OpenAI from 'openai';
import { Stream } from 'openai/core/streaming';

type ChunkStream = AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>;
type Body = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;

/** What a streamed call reports while it runs: text as it is written, and each tool call as its name is known. */
export interface StreamListener {
  text(delta: string): void;
  toolCallStarted(call: { index: number; id: string; name: string }): void;
}

/**
 * Asks for the completion as a stream (`stream: true`, usage included) and assembles the chunks into a
 * chat-completion-shaped object, for `readModelReply` like an unstreamed answer. An endpoint that answers with a
 * plain body instead of server-sent events is read as an unstreamed call would read it (JSON, else text).
 */
export async function streamedCompletion(
  openai: OpenAI,
  body: Body,
  options: OpenAI.RequestOptions,
  listener: StreamListener,
): Promise<unknown> {
  const response = await openai.chat.completions
    .create({ ...body, stream: true, stream_options: { include_usage: true } }, options)
    .asResponse();
  const mediaType = response.headers.get('content-type')?.split(';')[0]?.trim() ?? '';
  if (mediaType !== 'text/event-stream') {
    if (mediaType.includes('application/json') || mediaType.endsWith('+json')) return response.json();
    return response.text();
  }
  const controller = new AbortController();
  const abort = () => controller.abort();
  options.signal?.addEventListener('abort', abort, { once: true });
  try {
    return await assemble(Stream.fromSSEResponse(response, controller, openai), listener);
  } finally {
    options.signal?.removeEventListener('abort', abort);
  }
}

interface ToolCallParts {
  id: string;
  name: string;
  arguments: string;
  announced: boolean;
}

/** Joins the chunks of the first choice into one completion, telling the listener as text and tool calls arrive. */
export async function assemble(chunks: ChunkStream, listener: StreamListener): Promise<unknown> {
  let id = '';
  let model = '';
  let created = 0;
  let content: string | null = null;
  let finishReason: string | null = null;
  let usage: unknown;
  const calls: ToolCallParts[] = [];
  let seen = false;
  for await (const chunk of chunks) {
    seen = true;
    id ||= chunk.id ?? '';
    model ||= chunk.model ?? '';
    created ||= chunk.created ?? 0;
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices?.find((candidate) => (candidate.index ?? 0) === 0);
    if (!choice) continue;
    finishReason = choice.finish_reason ?? finishReason;
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string' && delta.content !== '') {
      content = (content ?? '') + delta.content;
      listener.text(delta.content);
    }
    for (const part of delta.tool_calls ?? []) {
      const index = typeof part.index === 'number' ? part.index : calls.length;
      const call = (calls[index] ??= { id: '', name: '', arguments: '', announced: false });
      if (part.id) call.id = part.id;
      if (part.function?.name) call.name += part.function.name;
      if (part.function?.arguments) call.arguments += part.function.arguments;
      if (!call.announced && call.name) {
        call.announced = true;
        listener.toolCallStarted({ index, id: call.id, name: call.name });
      }
    }
  }
  // Nothing at all is no answer: read as a body that is not a chat completion (retryable).
  if (!seen) return 'an event stream without a single chunk';
  const toolCalls = calls
    .filter((call) => call !== undefined)
    .map((call) => ({ ...(call.id ? { id: call.id } : {}), type: 'function', function: { name: call.name, arguments: call.arguments } }));
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
        finish_reason: finishReason,
      },
    ],
    ...(usage !== undefined ? { usage } : {}),
  };
}
