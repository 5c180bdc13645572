import { Context } from '@temporalio/activity';
import type OpenAI from 'openai';
import type { ToolReply } from '../shared/tool-reply.js';
import {
  DEFAULT_TIMEOUT_MS,
  ExtractionInputTooLong,
  extractionMessages,
  webFetch,
  WebFetchError,
  type AllowList,
  type Extractor,
  type WebFetchInput,
} from '../web/fetch/index.js';
import { budgetAfterOverflow, budgetForContextTokens, isContextOverflow, messagesSize } from './context-window.js';
import type { WebFetchSettings } from './web-fetch-settings.js';
import type { ModelUsage } from '../shared/usage.js';
import { whileHeartbeating } from './heartbeating.js';
import { readUsage } from './model-reply.js';
import { defaultPrices, priceUsage, type PriceTable } from './prices.js';
import {
  webSearch,
  WebSearchError,
  WebSearchInputError,
  type SearchConfig,
  type WebSearchInput,
  type WebSearchResult,
} from '../web/search/index.js';

export interface WebSettings {
  search: SearchConfig;
  /** Hosts and ranges webFetch may reach despite the address policy (ARBOR_FETCH_ALLOW). */
  fetchAllow: AllowList;
  /**
   * The endpoint and small model that apply webFetch's prompt; without them, pages come back raw. With the model's
   * context window (tokens), pages are cut to fit it before they are sent.
   */
  extraction?: { client: OpenAI; model: string; contextTokens?: number | undefined; prices?: PriceTable | undefined };
  /** Whether this worker offers webFetch, and its extraction threshold; `false`: it refuses the calls it is sent. */
  fetch: WebFetchSettings | false;
}

/** webFetch's answer, with the usage of the helper model's calls that applied its prompt (none: no such call). */
export type WebFetchReply = ToolReply<string> & { usage?: ModelUsage[] };

/** Less of the call's time than this left for a retry is not worth one. */
const minimumAttemptMs = 2_000;

/** The web tools' activities. Configuration (engine keys) stays in the worker; only the query and results enter history. */
export function createWebActivities({ search, fetchAllow, extraction, fetch }: WebSettings) {
  const extractorFor = extraction ? createExtractor(extraction) : undefined;

  return {
    /**
     * webFetch. Its 60 seconds (`timeoutMs`) are the whole call, retries included: the first attempt has them all, a retry what is
     * left since the call was scheduled (by the server's clock), and a timeout is not tried again.
     */
    async fetchWebPage(input: WebFetchInput): Promise<WebFetchReply> {
      if (fetch === false) {
        return {
          ok: false,
          error: 'webFetch is not enabled on this worker (ARBOR_WEB_FETCH=on, or createArborWorker({ webFetch: true })).',
        };
      }
      const { info } = Context.current();
      const callMs = fetch.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const left = info.attempt <= 1 ? callMs : Math.min(callMs, info.scheduledTimestampMs + callMs - Date.now());
      if (info.attempt > 1 && left < minimumAttemptMs) {
        return {
          ok: false,
          error: `webFetch gave up on ${input.url}: ${info.attempt - 1} attempts failed and the call's ${callMs / 1000} seconds are used up.`,
        };
      }
      // The helper model's calls, priced: the session records them as its own usage, whatever the fetch's outcome.
      const spent: ModelUsage[] = [];
      const extract = extractorFor?.(spent);
      const withUsage = (reply: ToolReply<string>): WebFetchReply => (spent.length > 0 ? { ...reply, usage: spent } : reply);
      try {
        const signal = Context.current().cancellationSignal;
        const options = {
          allow: fetchAllow,
          signal,
          timeoutMs: left,
          ...(fetch.extractionThresholdBytes !== undefined ? { extractionThresholdBytes: fetch.extractionThresholdBytes } : {}),
          ...(extract ? { extract } : {}),
        };
        const result = await whileHeartbeating(() => webFetch(input, options));
        return withUsage({ ok: true, result });
      } catch (error) {
        // The call's time is spent: the model reads that, and no retry makes it wait longer.
        if (error instanceof WebFetchError && error.code === 'TIMEOUT') {
          return withUsage({
            ok: false,
            error: `${error.message} webFetch's ${callMs / 1000} seconds are the whole call; it is not tried again.`,
          });
        }
        // Network errors, 408/429/5xx are worth Temporal's retries (within the call's time); the rest the model should read.
        if (error instanceof WebFetchError && !error.retryable) return withUsage({ ok: false, error: error.message });
        throw error;
      }
    },

    async searchWeb(input: WebSearchInput): Promise<ToolReply<WebSearchResult>> {
      try {
        const signal = Context.current().cancellationSignal;
        return { ok: true, result: await whileHeartbeating(() => webSearch(input, search, { signal })) };
      } catch (error) {
        if (error instanceof WebSearchError || error instanceof WebSearchInputError) return { ok: false, error: error.message };
        throw error;
      }
    },
  };
}

/**
 * Calls the small model to apply webFetch's prompt. Its request budget comes from the model's window where known; a
 * refusal as too long teaches this worker a smaller one, and webFetch retries with the page cut to it.
 */
function createExtractor(extraction: NonNullable<WebSettings['extraction']>): (spent: ModelUsage[]) => Extractor {
  let budget = extraction.contextTokens === undefined ? Infinity : budgetForContextTokens(extraction.contextTokens);
  // The request's size in the budget's measure, less the page content.
  const overhead = (prompt: string, url: string) => messagesSize(extractionMessages('', prompt, url));
  return (spent) => {
    const extract: Extractor = async (content, prompt, url, signal) => {
      const messages = extractionMessages(content, prompt, url);
      try {
        const completion = await extraction.client.chat.completions.create(
          { model: extraction.model, messages },
          { signal: signal ?? Context.current().cancellationSignal },
        );
        const usage = readUsage(completion as unknown as Record<string, unknown>);
        if (usage) spent.push(priceUsage(usage, extraction.model, extraction.prices ?? defaultPrices));
        return boundExtraction(completion.choices[0]?.message.content ?? '');
      } catch (error) {
        if (!isContextOverflow(error)) throw error;
        budget = Math.min(budget, budgetAfterOverflow(error, messagesSize(messages)));
        throw new ExtractionInputTooLong(
          Math.max(0, budget - overhead(prompt, url)),
          `the page is too long for ${extraction.model}'s context window (${error.message})`,
        );
      }
    };
    extract.maxInputBytes = (prompt, url) => (Number.isFinite(budget) ? Math.max(0, budget - overhead(prompt, url)) : undefined);
    return extract;
  };
}

/**
 * The most characters of the helper model's extraction a webFetch result carries: with the result's header, within the
 * 100,000 characters the model is shown of any tool result. A longer answer is cut here, in the activity, so a runaway
 * helper model cannot push the activity's result past Temporal's 2 MB payload limit.
 */
export const maxExtractionChars = 90_000;

function boundExtraction(text: string): string {
  if (text.length <= maxExtractionChars) return text;
  return `${text.slice(0, maxExtractionChars)}\n\n[cut: the helper model's answer has ${text.length.toLocaleString('en-US')} characters; only the first ${maxExtractionChars.toLocaleString('en-US')} are shown]`;
}
