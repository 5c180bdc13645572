import { ApplicationFailure, CancelledFailure, Context, log } from '@temporalio/activity';
import { APIUserAbortError } from 'openai';
import type OpenAI from 'openai';
import { demoModelName, modelRequestRejected, type CallModelInput, type ModelReply } from '../shared/model.js';
import { toChatMessages } from './chat-messages.js';
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

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type ToolSpec = OpenAI.Chat.Completions.ChatCompletionTool;

const heartbeatEveryMs = 2_000;
/** How many times one call fits its conversation again after the provider refused it as too long. */
const maxRefits = 3;

export function createCallModel(
  settings: ModelSettings,
  transcripts: TranscriptCache,
  catalogues: CatalogueCache,
  /** Opens the sealed secret answers of the running turn (see sealed-answers.ts); none: they stay withheld. */
  secretKey?: string,
) {
  const openai = createOpenAIClient(settings);
  const prices = settings.prices ?? defaultPrices;
  /** Request budgets (see `messagesSize`) learned from refusals, per model, so later calls are fitted before sending. */
  const learnedBudgets = new Map<string, number>();

  /**
   * Sends the conversation, fitted to the model's context window when that is known (configured or learned); a
   * refusal as too long is answered by fitting it tighter and asking again.
   */
  async function complete(model: string, conversation: ChatMessage[], tools: ToolSpec[], signal: AbortSignal, sessionId: string) {
    // Measured only when a budget applies: most calls are sent as they are, and the specs are about 23 KB.
    let measuredToolsSize: number | undefined;
    const toolsSize = () => (measuredToolsSize ??= tools.length > 0 ? JSON.stringify(tools).length : 0);
    const configured = contextTokensFor(settings, model);
    let budget = learnedBudgets.get(model) ?? (configured ? budgetForContextTokens(configured) : undefined);
    for (let refits = 0; ; refits++) {
      const fitted: FittedRequest =
        budget === undefined ? { messages: conversation, leftOut: 0, cutCharacters: 0 } : fitToContext(conversation, budget - toolsSize());
      try {
        const completion = await openai.chat.completions.create(
          { model, messages: fitted.messages, ...(tools.length > 0 ? { tools } : {}) },
          { signal, ...(settings.sendSessionId ? { headers: { [sessionIdHeader]: sessionId } } : {}) },
        );
        return { completion, fitted };
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
    if (input.model === demoModelName) return demoReply(transcript, input.tool_names);

    const context = Context.current();
    const heartbeat = setInterval(() => context.heartbeat(), heartbeatEveryMs);
    try {
      const conversation = toChatMessages(input.system_prompt, transcript);
      const catalogue = await catalogues.resolve(input.session_id, input.run_id, input.host_tools_digest);
      const tools = toolSpecs(input.tool_names, catalogue, input.profile);
      return await traceModelCall(input, conversation, async (recordAnswer) => {
        const { completion, fitted } = await complete(input.model, conversation, tools, context.cancellationSignal, input.session_id);
        // The endpoint is outside Arbor's control: its body is checked, and bounded, before it enters the workflow.
        const reply = withCost(readModelReply(completion, `call_t${input.turn}_r${input.round}`), input.model, prices);
        recordAnswer(completion, reply);
        if (fitted.leftOut === 0 && fitted.cutCharacters === 0) return reply;
        return { ...reply, context_fitted: { left_out_messages: fitted.leftOut, cut_characters: fitted.cutCharacters } };
      });
    } catch (error) {
      // Cancelled (the session stopped, or the worker is shutting down): the client's abort error is a cancellation,
      // which the worker records quietly, not a failure it logs as a warning with the client's stack.
      if (context.cancellationSignal.aborted && error instanceof APIUserAbortError) throw cancellationOf(context.cancellationSignal);
      throw toModelFailure(error, input.model);
    } finally {
      clearInterval(heartbeat);
    }
  };
}

/** The reply with its usage priced by the worker's table (the model's name and the cost, null when it has no price). */
export function withCost(reply: ModelReply, askedModel: string, prices: PriceTable): ModelReply {
  return reply.usage ? { ...reply, usage: priceUsage(reply.usage, askedModel, prices) } : reply;
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
