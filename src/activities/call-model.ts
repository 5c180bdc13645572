import { Context } from '@temporalio/activity';
import { demoModelName, type CallModelInput, type ModelReply } from '../shared/model.js';
import { toChatMessages } from './chat-messages.js';
import { demoReply } from './demo-model.js';
import { toModelFailure } from './model-errors.js';
import type { ModelSettings } from './model-settings.js';
import { readModelReply } from './model-reply.js';
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
      // The endpoint is outside Arbor's control: its body is checked, and bounded, before it enters the workflow.
      return readModelReply(completion, `call_t${input.turn}_r${input.round}`);
    } catch (error) {
      throw toModelFailure(error);
    } finally {
      clearInterval(heartbeat);
    }
  };
}
