import { ApplicationFailure, CancelledFailure, Context, log } from '@temporalio/activity';
import { APIError, APIUserAbortError } from 'openai';
import type OpenAI from 'openai';
import { demoModelName, modelRequestRejected, type CallModelInput, type ModelReply } from '../shared/model.js';
import { toChatMessages } from './chat-messages.js';
import { summaryInEffect } from '../shared/compaction.js';
import {
  budgetAfterOverflow,
  budgetForContextTokens,
  fitToContext,
  isContextOverflow,
  messagesSize,
  type FittedRequest,
} from './context-window.js';
import { demoReply } from './demo-model.js';
import { toModelFailure } from './model-errors.js';
import { contextTokensFor, sessionIdHeader, type ModelSettings } from './model-settings.js';
import { readModelReply } from './model-reply.js';
import { defaultPrices, priceUsage, type PriceTable } from './prices.js';
import { createOpenAIClient } from './openai-client.js';
import { toolSpecs } from './tool-specs.js';
import type { TranscriptCache } from './transcript-cache.js';
import type { CatalogueCache } from './catalogue-cache.js';
import { openSecretsOfTurn } from './sealed-answers.js';
import { traceModelCall } from '../tracing/model-span.js';
import { streamedCompletion, type StreamListener } from './streamed-completion.js';
import { StreamBatcher } from './stream-batcher.js';
import type { StreamBatch, StreamOrigin } from '../shared/stream.js';

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type ToolSpec = OpenAI.Chat.Completions.ChatCompletionTool;

const heartbeatEveryMs = 2_000;
/** How many times one call fits its conversation again after the provider refused it as too long. */
const maxRefits = 3;

/** Sends a batch of what a streamed call wrote to the session (workflow id, run id) that made the call. */
export type StreamSink = (execution: { workflowId: string; runId: string }, batch: StreamBatch) => Promise<void>;

export function createCallModel(
  settings: ModelSettings,
  transcripts: TranscriptCache,
  catalogues: CatalogueCache,
  /** Opens the sealed secret answers of the running turn (see sealed-answers.ts); none: they stay withheld. */
  secretKey?: string,
  /** Where streamed output goes; none (or `settings.stream` false): calls are not streamed. */
  streamSink?: StreamSink,
) {
  const openai = createOpenAIClient(settings);
  const prices = settings.prices ?? defaultPrices;
  /** Models whose endpoint refused `stream`: asked unstreamed from then on. */
  const unstreamedModels = new Set<string>();
  /** Request budgets (see `messagesSize`) learned from refusals, per model, so later calls are fitted before sending. */
  const learnedBudgets = new Map<string, number>();

  /**
   * Sends the conversation, fitted to the model's context window when that is known (configured or learned); a
   * refusal as too long is answered by fitting it tighter and asking again.
   */
  async function complete(
    model: string,
    conversation: ChatMessage[],
    /** The conversation with the session's pinned state in its system prompt, sent instead once anything is left out. */
    pinnedConversation: ChatMessage[] | undefined,
    tools: ToolSpec[],
    signal: AbortSignal,
    sessionId: string,
    listener: StreamListener | undefined,
  ) {
    // Measured only when a budget applies: most calls are sent as they are, and the specs are about 23 KB.
    let measuredToolsSize: number | undefined;
    const toolsSize = () => (measuredToolsSize ??= tools.length > 0 ? JSON.stringify(tools).length : 0);
    const configured = contextTokensFor(settings, model);
    let budget = learnedBudgets.get(model) ?? (configured ? budgetForContextTokens(configured) : undefined);
    for (let refits = 0; ; refits++) {
      let fitted: FittedRequest =
        budget === undefined ? { messages: conversation, leftOut: 0, cutCharacters: 0 } : fitToContext(conversation, budget - toolsSize());
      if (budget !== undefined && fitted.leftOut > 0 && pinnedConversation) fitted = fitToContext(pinnedConversation, budget - toolsSize());
      try {
        const body = { model, messages: fitted.messages, ...(tools.length > 0 ? { tools } : {}) };
        const options = { signal, ...(settings.sendSessionId ? { headers: { [sessionIdHeader]: sessionId } } : {}) };
        if (listener && !unstreamedModels.has(model)) {
          try {
            return { completion: await streamedCompletion(openai, body, options, listener), fitted, budget };
          } catch (error) {
            if (!refusesStreaming(error)) throw error;
            unstreamedModels.add(model);
            log.warn('the model endpoint refused a streamed request; asking this model unstreamed from now on', { model });
          }
        }
        const completion: unknown = await openai.chat.completions.create(body, options);
        return { completion, fitted, budget };
      } catch (error) {
        if (!isContextOverflow(error)) throw error;
        const smaller = budgetAfterOverflow(error, messagesSize(fitted.messages) + toolsSize());
        if (refits >= maxRefits) throw stillTooLong(error, fitted, refits);
        budget = smaller;
        learnedBudgets.set(model, Math.min(smaller, learnedBudgets.get(model) ?? Infinity));
        log.warn('the model refused the request as longer than its context window; fitting the conversation tighter', { model, budget });
      }
    }
  }

  return async function callModel(input: CallModelInput): Promise<ModelReply> {
    const transcript = openSecretsOfTurn(
      await transcripts.resolve(input.session_id, input.run_id, input.transcript_start, input.transcript_delta),
      input.turn,
      secretKey,
    );
    const context = Context.current();
    const batcher = settings.stream !== false && streamSink ? streamBatcher(streamSink, context, input) : undefined;
    if (input.model === demoModelName) {
      const reply = demoReply(transcript, input.tool_names);
      // The demo streams its scripted reply word by word, so a newcomer sees what streaming looks like.
      if (batcher) {
        for (const word of (reply.content ?? '').split(/(?<=\s)/)) batcher.listener.text(word);
        reply.tool_calls.forEach((call, index) => batcher.listener.toolCallStarted({ index, id: call.id, name: call.name }));
        await batcher.batcher.close();
      }
      return reply;
    }

    const heartbeat = setInterval(() => context.heartbeat(), heartbeatEveryMs);
    try {
      const summarized = summaryInEffect(transcript) !== null;
      const conversation = toChatMessages(input.system_prompt, transcript, summarized ? input.pinned_state : undefined);
      const pinnedConversation =
        input.pinned_state && !summarized ? toChatMessages(input.system_prompt, transcript, input.pinned_state) : undefined;
      const catalogue = await catalogues.resolve(input.session_id, input.run_id, input.host_tools_digest);
      const tools = toolSpecs(input.tool_names, catalogue, input.profile);
      return await traceModelCall(input, conversation, async (recordAnswer) => {
        const { completion, fitted, budget } = await complete(
          input.model,
          conversation,
          pinnedConversation,
          tools,
          context.cancellationSignal,
          input.session_id,
          batcher?.listener,
        );
        // The endpoint is outside Arbor's control: its body is checked, and bounded, before it enters the workflow.
        const reply = withCost(readModelReply(completion, `call_t${input.turn}_r${input.round}`), input.model, prices);
        recordAnswer(completion, reply);
        if (fitted.leftOut === 0 && fitted.cutCharacters === 0) return reply;
        return {
          ...reply,
          context_fitted: {
            left_out_messages: fitted.leftOut,
            cut_characters: fitted.cutCharacters,
            ...(budget !== undefined ? { conversation_chars: conversationRoom(budget, tools, fitted.messages) } : {}),
          },
        };
      });
    } catch (error) {
      // Cancelled (the session stopped, or the worker is shutting down): the client's abort error is a cancellation,
      // which the worker records quietly, not a failure it logs as a warning with the client's stack.
      if (context.cancellationSignal.aborted && error instanceof APIUserAbortError) throw cancellationOf(context.cancellationSignal);
      throw toModelFailure(error, input.model);
    } finally {
      clearInterval(heartbeat);
      // Sent before the activity completes, so the session holds every delta of a reply before the reply itself.
      await batcher?.batcher.close();
    }
  };
}

/** The characters the conversation had after the system prompt and the tool specs, in `messagesSize`'s measure. */
function conversationRoom(budget: number, tools: ToolSpec[], sent: ChatMessage[]): number {
  const system = sent[0]?.role === 'system' ? messagesSize([sent[0]]) : 0;
  return Math.max(0, budget - (tools.length > 0 ? JSON.stringify(tools).length : 0) - system);
}

/** The reply with its usage priced by the worker's table (the model's name and the cost, null when it has no price). */
export function withCost(reply: ModelReply, askedModel: string, prices: PriceTable): ModelReply {
  return reply.usage ? { ...reply, usage: priceUsage(reply.usage, askedModel, prices) } : reply;
}

/** The batcher of one attempt, and the listener that feeds it; a retried attempt first says so (a `retry` item). */
function streamBatcher(sink: StreamSink, context: Context, input: CallModelInput) {
  const { attempt } = context.info;
  const origin: StreamOrigin = { turn: input.turn, round: input.round, attempt };
  const execution = { workflowId: input.session_id, runId: input.run_id };
  const batcher = new StreamBatcher((items) => sink(execution, { items }));
  if (attempt > 1) batcher.add({ type: 'retry', ...origin });
  const listener: StreamListener = {
    text: (text) => batcher.add({ type: 'text_delta', text, ...origin }),
    toolCallStarted: (call) =>
      batcher.add({ type: 'tool_call_started', index: call.index, tool_call_id: call.id, name: call.name, ...origin }),
  };
  return { batcher, listener };
}

/** A 400 that names `stream` or `stream_options`: an endpoint that does not stream (some proxies and local servers). */
function refusesStreaming(error: unknown): boolean {
  return error instanceof APIError && error.status === 400 && /stream/i.test(error.message);
}

function cancellationOf(signal: AbortSignal): CancelledFailure {
  return signal.reason instanceof CancelledFailure ? signal.reason : new CancelledFailure(String(signal.reason ?? 'cancelled'));
}

function stillTooLong(error: unknown, fitted: FittedRequest, refits: number): ApplicationFailure {
  const refusal = toModelFailure(error);
  const detail = refusal instanceof Error ? refusal.message : String(error);
  return ApplicationFailure.create({
    message:
      `${detail}; the conversation was fitted to the model's context window ${refits} times (the last time with ` +
      `${fitted.leftOut} earlier messages left out and ${fitted.cutCharacters.toLocaleString('en-US')} characters cut) and still did not fit`,
    type: modelRequestRejected,
    nonRetryable: true,
  });
}
