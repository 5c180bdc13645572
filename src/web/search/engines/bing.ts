import { SearchEngineError } from '../errors.js';
import { checkStatus, isRecord, parseJson, stringField, tryParseJson, unparseable } from '../http.js';
import type { EngineQuery, SearchEngine, SearchHit } from '../types.js';

export const bingDefaultUrl = 'https://api.bing.microsoft.com/v7.0/search';

/** Bing's count parameter goes up to 50. */
const bingMaxCount = 50;

/**
 * Bing Web Search API v7: GET {url}?q=…&count=…[&freshness=Day|Week|Month|YYYY-MM-DD..YYYY-MM-DD]
 * with the key in the Ocp-Apim-Subscription-Key header; results in webPages.value[] (name, url, snippet).
 */
export const bing: SearchEngine<'bing'> = {
  name: 'bing',
  label: 'Bing',

  buildRequest(config, query) {
    const url = new URL(config.url);
    url.searchParams.set('q', query.query);
    url.searchParams.set('count', String(Math.min(query.maxResults, bingMaxCount)));
    url.searchParams.set('responseFilter', 'Webpages');
    url.searchParams.set('textDecorations', 'false');
    url.searchParams.set('textFormat', 'Raw');
    const freshness = bingFreshness(query);
    if (freshness) url.searchParams.set('freshness', freshness);
    return {
      url: url.toString(),
      method: 'GET',
      headers: { accept: 'application/json', 'ocp-apim-subscription-key': config.apiKey },
    };
  },

  parseAnswer(answer) {
    checkStatus('bing', answer, bingErrorMessage(tryParseJson(answer.body)));
    const data = parseJson('bing', answer);
    if (!isRecord(data)) throw unparseable('bing', answer, 'not a JSON object');
    if (data._type === 'ErrorResponse') {
      throw new SearchEngineError('bing', 'http_status', `error answer: ${bingErrorMessage(data) ?? 'no message'}`, {
        status: answer.status,
      });
    }
    const webPages = data.webPages;
    if (webPages === undefined) {
      // A SearchResponse without webPages is Bing's way of saying "no results".
      if (data._type === 'SearchResponse') return [];
      throw unparseable('bing', answer, 'neither webPages nor a SearchResponse');
    }
    if (!isRecord(webPages) || !Array.isArray(webPages.value)) throw unparseable('bing', answer, 'webPages.value is not an array');
    const hits: SearchHit[] = [];
    for (const item of webPages.value) {
      if (!isRecord(item)) continue;
      const url = stringField(item, 'url');
      if (url) hits.push({ title: stringField(item, 'name'), url, description: stringField(item, 'snippet') });
    }
    if (hits.length === 0 && webPages.value.length > 0) throw unparseable('bing', answer, 'webPages without urls');
    return hits;
  },
};

/** Day, Week and Month are Bing keywords; a year has none, so it becomes the date range of the last 365 days. */
export function bingFreshness(query: Pick<EngineQuery, 'timeRange' | 'now'>): string | undefined {
  switch (query.timeRange) {
    case undefined:
      return undefined;
    case 'day':
      return 'Day';
    case 'week':
      return 'Week';
    case 'month':
      return 'Month';
    case 'year': {
      const from = new Date(query.now.getTime() - 365 * 24 * 60 * 60 * 1000);
      return `${isoDate(from)}..${isoDate(query.now)}`;
    }
  }
}

function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function bingErrorMessage(data: unknown): string | undefined {
  if (!isRecord(data)) return undefined;
  const errors = data.errors;
  if (Array.isArray(errors) && isRecord(errors[0])) {
    const message = stringField(errors[0], 'message');
    const code = stringField(errors[0], 'code');
    return [code, message].filter(Boolean).join(': ') || undefined;
  }
  // Azure API Management answers {"error": {"code", "message"}} for key and quota problems.
  if (isRecord(data.error)) return stringField(data.error, 'message') || stringField(data.error, 'code') || undefined;
  return undefined;
}
