import { defaultSearchTimeoutMs, type SearchConfig } from './config.js';
import { buildEngineRequest, searchEngines } from './engines/index.js';
import { SearchEngineError, WebSearchError, WebSearchInputError, type EngineAttempt, type EngineFailureKind } from './errors.js';
import { sendRequest, shorten } from './http.js';
import { timeRanges, type EngineQuery, type SearchEngineName, type SearchHit, type TimeRange } from './types.js';

export const defaultMaxResults = 10;
export const maxMaxResults = 30;

const maxTitleLength = 300;
const maxDescriptionLength = 1000;

export interface WebSearchInput {
  query: string;
  max_results?: number;
  time_range?: TimeRange;
}

export interface WebSearchResultItem {
  title: string;
  url: string;
  description: string;
  /** The engine that answered: searxng, tavily, bing or duckduckgo. */
  source: string;
}

export interface WebSearchResult {
  query: string;
  result_count: number;
  results: WebSearchResultItem[];
}

export interface EngineFailure extends EngineAttempt {
  kind: EngineFailureKind | 'unexpected';
}

export interface WebSearchOptions {
  /** Default: the global fetch. */
  fetch?: typeof fetch;
  /** Per-engine timeout for the whole exchange. Default: config.timeoutMs, else 15 s. */
  timeoutMs?: number;
  /** Cancels the search (e.g. the activity's cancellation signal); no failover after it fires. */
  signal?: AbortSignal;
  /** Clock for Bing's "year" date range. */
  now?: () => Date;
  /** Told about each engine that failed before another answered, e.g. to log it. */
  onEngineFailure?: (failure: EngineFailure) => void;
}

/**
 * Searches the web with the configured engines in order, failing over to the next one on an error, a timeout, a rate
 * limit, an unparseable answer, or an empty answer (another engine may know more). Results are de-duplicated by URL and
 * cut to max_results (default 10, at most 30), all from the one engine that answered.
 * Zero results is returned as such when every engine that answered had none; when all engines failed, throws one
 * WebSearchError naming each engine and why.
 */
export async function webSearch(input: WebSearchInput, config: SearchConfig, options: WebSearchOptions = {}): Promise<WebSearchResult> {
  const query = typeof input.query === 'string' ? input.query.trim() : '';
  if (!query) throw new WebSearchInputError('webSearch needs a non-empty query.');
  const maxResults = resolveMaxResults(input.max_results);
  const timeRange = resolveTimeRange(input.time_range);
  const engineQuery: EngineQuery = {
    query,
    maxResults,
    ...(timeRange ? { timeRange } : {}),
    now: options.now?.() ?? new Date(),
  };
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? config.timeoutMs ?? defaultSearchTimeoutMs;

  const attempts: EngineAttempt[] = [];
  let someEngineAnswered = false;
  for (const engineConfig of config.engines) {
    const name = engineConfig.engine;
    try {
      const request = buildEngineRequest(engineConfig, engineQuery);
      const answer = await sendRequest(name, request, {
        fetch: fetchImpl,
        timeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const results = finishResults(searchEngines[name].parseAnswer(answer), name, maxResults);
      if (results.length > 0) return { query: input.query, result_count: results.length, results };
      someEngineAnswered = true;
      attempts.push({ engine: name, reason: 'no results' });
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      const failure: EngineFailure =
        error instanceof SearchEngineError
          ? { engine: name, reason: error.message, kind: error.kind }
          : { engine: name, reason: `unexpected error: ${error instanceof Error ? error.message : String(error)}`, kind: 'unexpected' };
      attempts.push({ engine: failure.engine, reason: failure.reason });
      options.onEngineFailure?.(failure);
    }
  }
  if (someEngineAnswered) return { query: input.query, result_count: 0, results: [] };
  throw new WebSearchError(attempts);
}

function resolveMaxResults(value: number | undefined): number {
  if (value === undefined || value === null) return defaultMaxResults;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new WebSearchInputError('max_results must be a number.');
  return Math.min(maxMaxResults, Math.max(1, Math.floor(value)));
}

function resolveTimeRange(value: string | undefined): TimeRange | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (!(timeRanges as readonly string[]).includes(value)) {
    throw new WebSearchInputError(`time_range must be one of ${timeRanges.join(', ')} (or left out for all time), not "${value}".`);
  }
  return value as TimeRange;
}

/** Keeps http(s) results, drops repeated URLs (ignoring #fragments), tidies text and cuts to maxResults. */
function finishResults(hits: SearchHit[], source: SearchEngineName, maxResults: number): WebSearchResultItem[] {
  const seen = new Set<string>();
  const results: WebSearchResultItem[] = [];
  for (const hit of hits) {
    if (results.length >= maxResults) break;
    const url = normalizeUrl(hit.url);
    if (!url) continue;
    const key = url.replace(/#.*$/, '');
    if (seen.has(key)) continue;
    seen.add(key);
    results.push({
      title: shorten(hit.title, maxTitleLength) || url,
      url,
      description: shorten(hit.description, maxDescriptionLength),
      source,
    });
  }
  return results;
}

function normalizeUrl(raw: string): string | undefined {
  try {
    const url = new URL(raw.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}
