import { describe, expect, it } from 'vitest';
import { contextTokensFor, modelSettingsFromEnv } from '../../src/activities/model-settings.js';

describe('modelSettingsFromEnv', () => {
  it('reads claurst model aliases from ARBOR_MODEL_ALIASES and refuses a pair without both sides', () => {
    expect(modelSettingsFromEnv({ ARBOR_MODEL_ALIASES: ' sonnet=gpt-4.1 , haiku = gpt-4o-mini' }).modelAliases).toEqual({
      sonnet: 'gpt-4.1',
      haiku: 'gpt-4o-mini',
    });
    expect(modelSettingsFromEnv({}).modelAliases).toBeUndefined();
    expect(() => modelSettingsFromEnv({ ARBOR_MODEL_ALIASES: 'sonnet' })).toThrow(/"sonnet" is not alias=model/);
  });

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

  it('reads ARBOR_MODELS as more models a sub-agent may name, without blanks', () => {
    expect(modelSettingsFromEnv({ ARBOR_MODELS: ' llama3.1, ,qwen2.5-coder ' }).models).toEqual(['llama3.1', 'qwen2.5-coder']);
    expect(modelSettingsFromEnv({ ARBOR_MODELS: ' , ' })).not.toHaveProperty('models');
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

  it('reads one context window for every model from ARBOR_MODEL_CONTEXT_TOKENS, and none when it is unset or blank', () => {
    expect(modelSettingsFromEnv({ ARBOR_MODEL_CONTEXT_TOKENS: '128000' }).contextTokens).toEqual({ default: 128_000 });
    expect(modelSettingsFromEnv({ ARBOR_MODEL_CONTEXT_TOKENS: ' 200_000 ' }).contextTokens).toEqual({ default: 200_000 });
    expect(modelSettingsFromEnv({ ARBOR_MODEL_CONTEXT_TOKENS: ' ' })).not.toHaveProperty('contextTokens');
    expect(modelSettingsFromEnv({})).not.toHaveProperty('contextTokens');
  });

  it('reads context windows per model, with a default for the others, and gives each model its own', () => {
    const settings = modelSettingsFromEnv({ ARBOR_MODEL_CONTEXT_TOKENS: '128000, llama3.1:8b=8192 ,gpt-4.1=1_000_000' });
    expect(settings.contextTokens).toEqual({ default: 128_000, models: { 'llama3.1:8b': 8_192, 'gpt-4.1': 1_000_000 } });
    expect(contextTokensFor(settings, 'llama3.1:8b')).toBe(8_192);
    expect(contextTokensFor(settings, 'gpt-4o-mini')).toBe(128_000);
    const namedOnly = modelSettingsFromEnv({ ARBOR_MODEL_CONTEXT_TOKENS: 'small=4096' });
    expect(contextTokensFor(namedOnly, 'small')).toBe(4_096);
    expect(contextTokensFor(namedOnly, 'other')).toBeUndefined();
  });

  it.each([
    ['128k', '128k'],
    ['0', '0'],
    ['999', '999'],
    ['64000.5', '64000.5'],
    ['128000,64000', '64000'],
    ['=8192', '=8192'],
    ['llama=8k', 'llama=8k'],
    ['128000,,llama=8192', ''],
  ])('refuses ARBOR_MODEL_CONTEXT_TOKENS=%j with a message that says what to give', (value, item) => {
    expect(() => modelSettingsFromEnv({ ARBOR_MODEL_CONTEXT_TOKENS: value })).toThrow(
      `ARBOR_MODEL_CONTEXT_TOKENS must give context windows as whole numbers of tokens, at least 1,000: one for every model (128000), per model (llama3.1=8192,gpt-4.1=1000000), or both (128000,llama3.1=8192); "${item}" in "${value}" is not one.`,
    );
  });
});
