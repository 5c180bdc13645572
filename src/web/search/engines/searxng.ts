import { SearchEngineError } from '../errors.js';
import { checkStatus, isRecord, parseJson, shorten, stringField, unparseable } from '../http.js';
import type { SearchEngine, SearchHit } from '../types.js';

/**
 * SearXNG's JSON API: GET {url}/search?q=…&format=json[&time_range=day|week|month|year].
 * The instance must allow the json format (settings.yml `search.formats`), otherwise it answers 403.
 * It has no result-count parameter; one page (typically 10–40 merged results) is read and truncated.
 */
export const searxng: SearchEngine<'searxng'> = {
  name: 'searxng',
  label: 'SearXNG',

  buildRequest(config, query) {
    const url = searxngSearchUrl(config.url);
    url.searchParams.set('q', query.query);
    url.searchParams.set('format', 'json');
    if (query.timeRange) url.searchParams.set('time_range', query.timeRange);
    return { url: url.toString(), method: 'GET', headers: { accept: 'application/json' } };
  },

  parseAnswer(answer) {
    if (answer.status === 403) {
      checkStatus('searxng', answer, 'is the json format enabled in the instance settings (search.formats)?');
    }
    checkStatus('searxng', answer);
    const data = parseJson('searxng', answer);
    if (!isRecord(data) || !Array.isArray(data.results)) throw unparseable('searxng', answer, 'no results array');
    const hits: SearchHit[] = [];
    for (const item of data.results) {
      if (!isRecord(item)) continue;
      const url = stringField(item, 'url');
      if (!url) continue;
      hits.push({ title: stringField(item, 'title'), url, description: stringField(item, 'content') });
    }
    if (hits.length === 0 && data.results.length > 0) throw unparseable('searxng', answer, 'results without urls');
    if (hits.length === 0) {
      // An instance whose upstream engines all failed (CAPTCHAs, suspensions) answers 200 with no results.
      const unresponsive = describeUnresponsive(data.unresponsive_engines);
      if (unresponsive) {
        throw new SearchEngineError('searxng', 'unavailable', `no results; unresponsive upstream engines: ${unresponsive}`, {
          status: answer.status,
        });
      }
    }
    return hits;
  },
};

/** Accepts the instance's base URL or its /search endpoint; keeps any path prefix (https://host/searx). */
export function searxngSearchUrl(configured: string): URL {
  const url = new URL(configured);
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path.endsWith('/search') ? path : `${path}/search`;
  return url;
}

function describeUnresponsive(value: unknown): string {
  if (!Array.isArray(value) || value.length === 0) return '';
  const parts = value.map((entry) =>
    Array.isArray(entry) ? entry.filter((part) => typeof part === 'string').join(' (') + (entry.length > 1 ? ')' : '') : String(entry),
  );
  return shorten(parts.join(', '));
}
