import { demoModelName } from '../shared/model.js';

/** How the worker reaches its model. Read from the worker's environment only: none of it enters workflow history. */
export interface ModelSettings {
  apiKey?: string;
  baseURL?: string;
  defaultModel: string;
  requestTimeoutMs: number;
  /** The small fast model webFetch uses to apply its prompt; none with the demo model. */
  fetchModel?: string;
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
    ...(endpointConfigured ? { fetchModel: nonEmpty(env.ARBOR_FETCH_MODEL) ?? nonEmpty(env.ARBOR_MODEL) ?? fallbackOpenAIModel } : {}),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
