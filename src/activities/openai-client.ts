import OpenAI from 'openai';
import type { ModelSettings } from './model-settings.js';

/** The worker's client for its OpenAI-compatible endpoint. Its own retries are off: Temporal's retry policy decides. */
export function createOpenAIClient(settings: ModelSettings): OpenAI {
  return new OpenAI({
    apiKey: settings.apiKey ?? 'no-key',
    ...(settings.baseURL ? { baseURL: settings.baseURL } : {}),
    maxRetries: 0,
    timeout: settings.requestTimeoutMs,
    ...(settings.fetch ? { fetch: settings.fetch } : {}),
  });
}
