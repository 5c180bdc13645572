import { demoModelName } from '../shared/model.js';

/** How the worker reaches its model. Read from the worker's environment only: none of it enters workflow history. */
export interface ModelSettings {
  apiKey?: string;
  baseURL?: string;
  defaultModel: string;
  requestTimeoutMs: number;
  /** The small fast model webFetch uses to apply its prompt; none with the demo model. */
  fetchModel?: string;
  /**
   * The models' context window in tokens, when known: requests are fitted to it before they are sent. Without it,
   * a request is fitted only after the provider refuses it as too long (and later ones to what was learned).
   */
  contextTokens?: number;
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
    ...(endpointConfigured ? { fetchModel: nonEmpty(env.ARBOR_FETCH_MODEL) ?? nonEmpty(env.ARBOR_MODEL) ?? fallbackOpenAIModel } : {}),
  };
}

/** Fewer tokens than this is not a chat model's context window but a mistake (a value in thousands, say). */
const minimumContextTokens = 1_000;

function contextTokensFrom(value: string | undefined): { contextTokens?: number } {
  const text = nonEmpty(value);
  if (text === undefined) return {};
  const tokens = Number(text.replace(/_/g, ''));
  if (!Number.isInteger(tokens) || tokens < minimumContextTokens) {
    throw new Error(
      `ARBOR_MODEL_CONTEXT_TOKENS must be the model's context window as a whole number of tokens, at least ${minimumContextTokens.toLocaleString('en-US')} (for example 128000), not "${text}".`,
    );
  }
  return { contextTokens: tokens };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
