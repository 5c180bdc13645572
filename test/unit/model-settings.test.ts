import { describe, expect, it } from 'vitest';
import { modelSettingsFromEnv } from '../../src/activities/model-settings.js';

describe('modelSettingsFromEnv', () => {
  it('defaults to the demo model with no key, no base URL and a two-minute timeout', () => {
    expect(modelSettingsFromEnv({})).toEqual({ defaultModel: 'demo', requestTimeoutMs: 120_000 });
  });

  it('defaults to gpt-4o-mini when an API key is set', () => {
    expect(modelSettingsFromEnv({ OPENAI_API_KEY: 'sk-test' })).toEqual({
      apiKey: 'sk-test',
      defaultModel: 'gpt-4o-mini',
      requestTimeoutMs: 120_000,
      fetchModel: 'gpt-4o-mini',
    });
  });

  it('uses ARBOR_FETCH_MODEL for webFetch extraction, else the default model, and none for the demo model', () => {
    expect(modelSettingsFromEnv({ OPENAI_API_KEY: 'k', ARBOR_MODEL: 'big', ARBOR_FETCH_MODEL: 'small' }).fetchModel).toBe('small');
    expect(modelSettingsFromEnv({ OPENAI_API_KEY: 'k', ARBOR_MODEL: 'big' }).fetchModel).toBe('big');
    expect(modelSettingsFromEnv({}).fetchModel).toBeUndefined();
  });

  it('defaults to gpt-4o-mini when only a base URL is set', () => {
    const settings = modelSettingsFromEnv({ OPENAI_BASE_URL: 'http://localhost:11434/v1' });
    expect(settings.defaultModel).toBe('gpt-4o-mini');
    expect(settings.baseURL).toBe('http://localhost:11434/v1');
    expect(settings).not.toHaveProperty('apiKey');
  });

  it('uses ARBOR_MODEL when set, with or without an endpoint', () => {
    expect(modelSettingsFromEnv({ OPENAI_API_KEY: 'sk', ARBOR_MODEL: 'gpt-5' }).defaultModel).toBe('gpt-5');
    expect(modelSettingsFromEnv({ ARBOR_MODEL: 'llama3' }).defaultModel).toBe('llama3');
  });

  it('ignores blank values as if they were unset', () => {
    const settings = modelSettingsFromEnv({ OPENAI_API_KEY: '  ', OPENAI_BASE_URL: '', ARBOR_MODEL: ' \t' });
    expect(settings).toEqual({ defaultModel: 'demo', requestTimeoutMs: 120_000 });
  });

  it('trims surrounding whitespace from the values it keeps', () => {
    const settings = modelSettingsFromEnv({ OPENAI_API_KEY: ' sk-x\n', OPENAI_BASE_URL: ' http://h/v1 ', ARBOR_MODEL: ' m ' });
    expect(settings.apiKey).toBe('sk-x');
    expect(settings.baseURL).toBe('http://h/v1');
    expect(settings.defaultModel).toBe('m');
  });

  it('reads a positive ARBOR_MODEL_TIMEOUT_MS', () => {
    expect(modelSettingsFromEnv({ ARBOR_MODEL_TIMEOUT_MS: '30000' }).requestTimeoutMs).toBe(30_000);
    expect(modelSettingsFromEnv({ ARBOR_MODEL_TIMEOUT_MS: ' 5000 ' }).requestTimeoutMs).toBe(5_000);
  });

  it.each(['0', '-1', 'abc', '', '  ', 'Infinity'])('falls back to 120000 ms for the timeout %j', (value) => {
    expect(modelSettingsFromEnv({ ARBOR_MODEL_TIMEOUT_MS: value }).requestTimeoutMs).toBe(120_000);
  });

  it('reads the context window from ARBOR_MODEL_CONTEXT_TOKENS, and has none when it is unset or blank', () => {
    expect(modelSettingsFromEnv({ ARBOR_MODEL_CONTEXT_TOKENS: '128000' }).contextTokens).toBe(128_000);
    expect(modelSettingsFromEnv({ ARBOR_MODEL_CONTEXT_TOKENS: ' 200_000 ' }).contextTokens).toBe(200_000);
    expect(modelSettingsFromEnv({ ARBOR_MODEL_CONTEXT_TOKENS: ' ' })).not.toHaveProperty('contextTokens');
    expect(modelSettingsFromEnv({})).not.toHaveProperty('contextTokens');
  });

  it.each(['128k', '0', '999', '-5', '1.5e5x', '64000.5'])('refuses ARBOR_MODEL_CONTEXT_TOKENS=%j with a message that says what to give', (value) => {
    expect(() => modelSettingsFromEnv({ ARBOR_MODEL_CONTEXT_TOKENS: value })).toThrow(
      `ARBOR_MODEL_CONTEXT_TOKENS must be the model's context window as a whole number of tokens, at least 1,000 (for example 128000), not "${value}".`,
    );
  });
});
