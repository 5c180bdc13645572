import { Context } from '@temporalio/activity';
import OpenAI from 'openai';
import { demoModelName, type CallModelInput, type ModelReply } from '../shared/model.js';
import type { ToolCall } from '../shared/session.js';
import { toChatMessages } from './chat-messages.js';
import { demoReply } from './demo-model.js';
import { toModelFailure } from './model-errors.js';
import type { ModelSettings } from './model-settings.js';
import { createOpenAIClient } from './openai-client.js';
import { toolSpecs } from './tool-specs.js';
import type { TranscriptCache } from './transcript-cache.js';

const heartbeatEveryMs = 2_000;

export function createCallModel(settings: ModelSettings, transcripts: TranscriptCache) {
  const openai = createOpenAIClient(settings);

  return async function callModel(input: CallModelInput): Promise<ModelReply> {
    const transcript = await transcripts.resolve(input.session_id, input.run_id, input.transcript_start, input.transcript_delta);
    if (input.model === demoModelName) return demoReply(transcript, input.tool_names);

    const context = Context.current();
    const heartbeat = setInterval(() => context.heartbeat(), heartbeatEveryMs);
    try {
      const tools = toolSpecs(input.tool_names);
      const completion = await openai.chat.completions.create(
        {
          model: input.model,
          messages: toChatMessages(input.system_prompt, transcript),
          ...(tools.length > 0 ? { tools } : {}),
        },
        { signal: context.cancellationSignal },
      );
      const message = completion.choices[0]?.message;
      if (!message) throw new Error('the model endpoint answered with no choices');
      return { content: message.content ?? null, tool_calls: functionCalls(message.tool_calls) };
    } catch (error) {
      throw toModelFailure(error);
    } finally {
      clearInterval(heartbeat);
    }
  };
}

function functionCalls(calls: OpenAI.Chat.Completions.ChatCompletionMessageToolCall[] | undefined): ToolCall[] {
  return (calls ?? []).flatMap((call) =>
    call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments ?? '' }] : [],
  );
}
