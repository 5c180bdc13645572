import { demoModelName } from '../shared/model.js';
import { pricesFrom, type PriceTable } from './prices.js';

/** How the worker reaches its model. Read from the worker's environment only: none of it enters workflow history. */
export interface ModelSettings {
  apiKey?: string;
  baseURL?: string;
  defaultModel: string;
  requestTimeoutMs: number;
  /** The small fast model webFetch uses to apply its prompt; none with the demo model. */
  fetchModel?: string;
  /**
   * The model that writes conversation summaries (ARBOR_SUMMARY_MODEL; see src/shared/compaction.ts); none: each
   * session's own model writes its summaries.
   */
  summaryModel?: string;
  /**
   * Whether conversations are summarized at all (default true; ARBOR_SUMMARIES=off turns it off): off, the
   * `summarizeConversation` activity writes nothing, and sessions fit their conversations by leaving the oldest out.
   */
  summaries?: boolean;
  /**
   * The models' context windows in tokens, where known: requests are fitted to them before they are sent. For a model
   * without one, a request is fitted only after the provider refuses it as too long (and later ones to what was learned).
   */
  contextTokens?: ContextWindows;
  /** More models a sub-agent may be given besides those above and those the endpoint lists (ARBOR_MODELS). */
  models?: string[];
  /**
   * What claurst's `Agent` model aliases (`sonnet`, `opus`, `haiku`) mean on this worker: alias -> model name
   * (ARBOR_MODEL_ALIASES, `sonnet=gpt-4.1,haiku=gpt-4o-mini`). An alias not given here is refused.
   */
  modelAliases?: Record<string, string>;
  /**
   * Sends the model's HTTP requests in place of the global fetch: `arbor/testing` answers them in-process with a
   * scripted model, through the same `openai` client and error handling as a real endpoint.
   */
  fetch?: typeof fetch;
  /**
   * Whether each model request names its session in the `X-Arbor-Session-Id` header (for tracing at a gateway; the
   * testing kit routes scripts by it). Default false.
   */
  sendSessionId?: boolean;
  /**
   * US dollars per million tokens, per model, that the cost of each call is reckoned by (ARBOR_PRICES, laid over
   * `defaultPrices`); absent: `defaultPrices`. A model without a price costs "unknown" (null), never a guess.
   */
  prices?: PriceTable;
  /**
   * Whether model calls stream from the provider, their text reaching subscribers while they run (default true;
   * ARBOR_STREAM=0 turns it off). An endpoint that answers unstreamed, or refuses `stream`, is read unstreamed.
   */
  stream?: boolean;
}

export const sessionIdHeader = 'x-arbor-session-id';

export interface ContextWindows {
  /** For models not named in `models`. */
  default?: number;
  models?: Record<string, number>;
}

/** The context window of one model, in tokens, if the settings give one. */
export function contextTokensFor(settings: ModelSettings, model: string): number | undefined {
  return settings.contextTokens?.models?.[model] ?? settings.contextTokens?.default;
}

export const fallbackOpenAIModel = 'gpt-4o-mini';

export function modelSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): ModelSettings {
  const apiKey = nonEmpty(env.OPENAI_API_KEY);
  const baseURL = nonEmpty(env.OPENAI_BASE_URL);
  const endpointConfigured = apiKey !== undefined || baseURL !== undefined;
  const timeout = Number(env.ARBOR_MODEL_TIMEOUT_MS);
  return {
    ...(apiKey ? { apiKey } : {}),
    ...(baseURL ? { baseURL } : {}),
    defaultModel: nonEmpty(env.ARBOR_MODEL) ?? (endpointConfigured ? fallbackOpenAIModel : demoModelName),
    requestTimeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : 120_000,
    ...contextTokensFrom(env.ARBOR_MODEL_CONTEXT_TOKENS),
    ...modelsFrom(env.ARBOR_MODELS),
    ...modelAliasesFrom(env.ARBOR_MODEL_ALIASES),
    ...(nonEmpty(env.ARBOR_PRICES) ? { prices: pricesFrom(env.ARBOR_PRICES) } : {}),
    ...(env.ARBOR_STREAM?.trim() === '0' || env.ARBOR_STREAM?.trim().toLowerCase() === 'false' ? { stream: false } : {}),
    ...(/^(off|0|false)$/i.test(env.ARBOR_SUMMARIES?.trim() ?? '') ? { summaries: false } : {}),
    ...(nonEmpty(env.ARBOR_SUMMARY_MODEL) ? { summaryModel: nonEmpty(env.ARBOR_SUMMARY_MODEL)! } : {}),
    ...(endpointConfigured ? { fetchModel: nonEmpty(env.ARBOR_FETCH_MODEL) ?? nonEmpty(env.ARBOR_MODEL) ?? fallbackOpenAIModel } : {}),
  };
}

/** `llama3.1,qwen2.5-coder`: the names, without blanks. */
function modelsFrom(value: string | undefined): { models?: string[] } {
  const names = (value ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return names.length > 0 ? { models: names } : {};
}

/** `sonnet=gpt-4.1,haiku=gpt-4o-mini`: alias -> model; a pair without both sides is a mistake the worker refuses at start. */
export function modelAliasesFrom(value: string | undefined): { modelAliases?: Record<string, string> } {
  const pairs = (value ?? '')
    .split(',')
    .map((pair) => pair.trim())
    .filter(Boolean);
  if (pairs.length === 0) return {};
  const aliases: Record<string, string> = {};
  for (const pair of pairs) {
    const [alias, model, ...rest] = pair.split('=').map((part) => part.trim());
    if (!alias || !model || rest.length > 0) throw new Error(`ARBOR_MODEL_ALIASES: "${pair}" is not alias=model (e.g. sonnet=gpt-4.1).`);
    aliases[alias] = model;
  }
  return { modelAliases: aliases };
}

/** Fewer tokens than this is not a chat model's context window but a mistake (a value in thousands, say). */
const minimumContextTokens = 1_000;

/** `128000`, or `llama3.1:8b=8192,gpt-4.1=1000000` with an optional bare default among them. */
function contextTokensFrom(value: string | undefined): { contextTokens?: ContextWindows } {
  const text = nonEmpty(value);
  if (text === undefined) return {};
  const windows: ContextWindows = {};
  for (const item of text.split(',').map((part) => part.trim())) {
    const separator = item.lastIndexOf('=');
    const model = separator === -1 ? undefined : item.slice(0, separator).trim();
    const tokens = Number(
      item
        .slice(separator + 1)
        .trim()
        .replace(/_/g, ''),
    );
    if (
      !Number.isInteger(tokens) ||
      tokens < minimumContextTokens ||
      model === '' ||
      (model === undefined && windows.default !== undefined)
    ) {
      throw new Error(
        `ARBOR_MODEL_CONTEXT_TOKENS must give context windows as whole numbers of tokens, at least ${minimumContextTokens.toLocaleString('en-US')}: ` +
          `one for every model (128000), per model (llama3.1=8192,gpt-4.1=1000000), or both (128000,llama3.1=8192); "${item}" in "${text}" is not one.`,
      );
    }
    if (model === undefined) windows.default = tokens;
    else windows.models = { ...windows.models, [model]: tokens };
  }
  return { contextTokens: windows };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
