import { SearchEngineError } from '../errors.js';
import { checkStatus, isRecord, parseJson, stringField, tryParseJson, unparseable } from '../http.js';
import type { SearchEngine, SearchHit } from '../types.js';

export const tavilyDefaultUrl = 'https://api.tavily.com/search';

/** Tavily's max_results goes up to 20. */
const tavilyMaxResults = 20;

/**
 * Tavily Search: POST {url} with a JSON body { query, max_results, time_range, … } and the key as
 * `Authorization: Bearer <key>` (the current API; the key is not repeated in the body).
 * Results in results[] (title, url, content).
 */
export const tavily: SearchEngine<'tavily'> = {
  name: 'tavily',
  label: 'Tavily',

  buildRequest(config, query) {
    const body: Record<string, unknown> = {
      query: query.query,
      max_results: Math.min(query.maxResults, tavilyMaxResults),
      search_depth: 'basic',
      topic: 'general',
      include_answer: false,
      include_raw_content: false,
      include_images: false,
    };
    if (query.timeRange) body.time_range = query.timeRange;
    return {
      url: config.url,
      method: 'POST',
      headers: {
        accept: 'application/json',
        'content-type': 'application/json',
        authorization: `Bearer ${config.apiKey}`,
      },
      body: JSON.stringify(body),
    };
  },

  parseAnswer(answer) {
    const detail = tavilyErrorMessage(tryParseJson(answer.body));
    // 432 and 433 are Tavily's plan and pay-as-you-go limits: a quota, like a rate limit.
    if (answer.status === 432 || answer.status === 433) {
      throw new SearchEngineError('tavily', 'rate_limited', `usage limit reached (HTTP ${answer.status}${detail ? `: ${detail}` : ''})`, {
        status: answer.status,
      });
    }
    checkStatus('tavily', answer, detail);
    const data = parseJson('tavily', answer);
    if (!isRecord(data) || !Array.isArray(data.results)) throw unparseable('tavily', answer, 'no results array');
    const hits: SearchHit[] = [];
    for (const item of data.results) {
      if (!isRecord(item)) continue;
      const url = stringField(item, 'url');
      if (url) hits.push({ title: stringField(item, 'title'), url, description: stringField(item, 'content') });
    }
    if (hits.length === 0 && data.results.length > 0) throw unparseable('tavily', answer, 'results without urls');
    return hits;
  },
};

function tavilyErrorMessage(data: unknown): string | undefined {
  if (!isRecord(data)) return undefined;
  const { detail, error } = data;
  if (typeof detail === 'string') return detail;
  if (isRecord(detail)) return stringField(detail, 'error') || stringField(detail, 'message') || undefined;
  if (typeof error === 'string') return error;
  if (isRecord(error)) return stringField(error, 'message') || stringField(error, 'code') || undefined;
  return undefined;
}
