import { describe, expect, it } from 'vitest';
import { isSearchConfigured, searchConfigFromEnv } from '../../src/web/search/config.js';
import { SearchConfigError } from '../../src/web/search/errors.js';
import { webSearch as webSearchTool } from '../../src/shared/tools/web.js';

const keys = { ARBOR_TAVILY_API_KEY: 'tvly-key', ARBOR_BING_API_KEY: 'bing-key', ARBOR_SEARXNG_URL: 'http://searx.internal:8080' };

describe('searchConfigFromEnv', () => {
  it('enables nothing in an empty environment, so webSearch is not offered', () => {
    expect(searchConfigFromEnv({}).engines).toEqual([]);
    expect(isSearchConfigured({})).toBe(false);
  });

  it('leaves keyless DuckDuckGo off unless it is asked for', () => {
    const config = searchConfigFromEnv({});
    expect(config.disabled).toContainEqual({ engine: 'duckduckgo', reason: expect.stringContaining('off by default') });
  });

  it('enables the engines that have their key or URL, in the default order SearXNG, Tavily, Bing, with public URLs', () => {
    const config = searchConfigFromEnv(keys);
    expect(config.engines).toEqual([
      { engine: 'searxng', url: 'http://searx.internal:8080' },
      { engine: 'tavily', url: 'https://api.tavily.com/search', apiKey: 'tvly-key' },
      { engine: 'bing', url: 'https://api.bing.microsoft.com/v7.0/search', apiKey: 'bing-key' },
    ]);
    expect(config.timeoutMs).toBe(15_000);
    expect(isSearchConfigured(keys)).toBe(true);
  });

  it('uses configured URLs in place of the public ones', () => {
    const config = searchConfigFromEnv({
      ...keys,
      ARBOR_TAVILY_URL: 'https://tavily-proxy.internal/search',
      ARBOR_BING_URL: 'https://bing-proxy.internal/v7.0/search',
    });
    expect(config.engines.map((engine) => engine.url)).toEqual([
      'http://searx.internal:8080',
      'https://tavily-proxy.internal/search',
      'https://bing-proxy.internal/v7.0/search',
    ]);
  });

  it('does not enable Tavily or Bing from a URL without a key', () => {
    const config = searchConfigFromEnv({
      ARBOR_TAVILY_URL: 'https://api.tavily.com/search',
      ARBOR_BING_URL: 'https://api.bing.microsoft.com/v7.0/search',
    });
    expect(config.engines).toEqual([]);
    expect(config.disabled).toEqual(
      expect.arrayContaining([
        { engine: 'tavily', reason: 'ARBOR_TAVILY_API_KEY is not set' },
        { engine: 'bing', reason: 'ARBOR_BING_API_KEY is not set' },
      ]),
    );
  });

  it('tries engines in the order ARBOR_SEARCH_ENGINES gives and uses only those', () => {
    const config = searchConfigFromEnv({ ...keys, ARBOR_SEARCH_ENGINES: ' Bing , searxng,bing ' });
    expect(config.engines.map((engine) => engine.engine)).toEqual(['bing', 'searxng']);
    expect(config.disabled).toContainEqual({ engine: 'tavily', reason: 'configured but not listed in ARBOR_SEARCH_ENGINES' });
  });

  it('skips a listed engine that lacks its required key', () => {
    const config = searchConfigFromEnv({ ARBOR_SEARXNG_URL: 'http://searx.internal', ARBOR_SEARCH_ENGINES: 'tavily,searxng' });
    expect(config.engines).toEqual([{ engine: 'searxng', url: 'http://searx.internal' }]);
    expect(config.disabled).toContainEqual({ engine: 'tavily', reason: 'ARBOR_TAVILY_API_KEY is not set' });
  });

  it('enables DuckDuckGo at its public endpoint when ARBOR_SEARCH_ENGINES names it', () => {
    expect(searchConfigFromEnv({ ARBOR_SEARCH_ENGINES: 'duckduckgo' }).engines).toEqual([
      { engine: 'duckduckgo', url: 'https://html.duckduckgo.com/html/' },
    ]);
    expect(isSearchConfigured({ ARBOR_SEARCH_ENGINES: 'duckduckgo' })).toBe(true);
  });

  it('enables DuckDuckGo, last by default, when ARBOR_DUCKDUCKGO_URL is set', () => {
    const config = searchConfigFromEnv({ ARBOR_BING_API_KEY: 'k', ARBOR_DUCKDUCKGO_URL: 'http://ddg-proxy.internal/html/' });
    expect(config.engines.map((engine) => engine.engine)).toEqual(['bing', 'duckduckgo']);
    expect(config.engines[1]).toEqual({ engine: 'duckduckgo', url: 'http://ddg-proxy.internal/html/' });
  });

  it('treats blank variables as unset', () => {
    const config = searchConfigFromEnv({
      ARBOR_SEARCH_ENGINES: ' ',
      ARBOR_TAVILY_API_KEY: '  ',
      ARBOR_SEARXNG_URL: '',
      ARBOR_SEARCH_TIMEOUT_MS: '',
    });
    expect(config.engines).toEqual([]);
    expect(config.timeoutMs).toBe(15_000);
  });

  it('reads the per-engine timeout from ARBOR_SEARCH_TIMEOUT_MS and ignores nonsense', () => {
    expect(searchConfigFromEnv({ ARBOR_SEARCH_TIMEOUT_MS: '4000' }).timeoutMs).toBe(4_000);
    expect(searchConfigFromEnv({ ARBOR_SEARCH_TIMEOUT_MS: 'soon' }).timeoutMs).toBe(15_000);
    expect(searchConfigFromEnv({ ARBOR_SEARCH_TIMEOUT_MS: '-5' }).timeoutMs).toBe(15_000);
  });

  it('rejects an unknown engine name, listing the known ones', () => {
    expect(() => searchConfigFromEnv({ ARBOR_SEARCH_ENGINES: 'bing,gogle' })).toThrow(SearchConfigError);
    expect(() => searchConfigFromEnv({ ARBOR_SEARCH_ENGINES: 'bing,gogle' })).toThrow(
      'ARBOR_SEARCH_ENGINES names unknown search engine "gogle"; known engines: searxng, tavily, bing, duckduckgo.',
    );
  });

  it('rejects a URL that is not http or https', () => {
    expect(() => searchConfigFromEnv({ ARBOR_SEARXNG_URL: 'searx.internal' })).toThrow(/ARBOR_SEARXNG_URL is not a valid URL/);
    expect(() => searchConfigFromEnv({ ARBOR_SEARXNG_URL: 'ftp://searx.internal' })).toThrow(/must be an http or https URL/);
  });
});

describe('the webSearch tool declaration', () => {
  it('asks the model to end its answer with a Sources section', () => {
    expect(webSearchTool.name).toBe('webSearch');
    expect(webSearchTool.description).toMatch(/end with a "Sources:" section/);
  });

  it('accepts query, max_results up to 30 and the four time ranges, and nothing else', () => {
    expect(webSearchTool.input.safeParse({ query: 'node 24 release', max_results: 30, time_range: 'year' }).success).toBe(true);
    expect(webSearchTool.input.safeParse({ query: 'q' }).success).toBe(true);
    expect(webSearchTool.input.safeParse({ query: 'q', max_results: 31 }).success).toBe(false);
    expect(webSearchTool.input.safeParse({ query: 'q', time_range: 'hour' }).success).toBe(false);
    expect(webSearchTool.input.safeParse({ query: '  ' }).success).toBe(false);
  });
});
