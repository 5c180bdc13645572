/** The search engines webSearch can use, in the default failover order (see config.ts for why). */
export const searchEngineNames = ['searxng', 'tavily', 'bing', 'duckduckgo'] as const;
export type SearchEngineName = (typeof searchEngineNames)[number];

import type { TimeRange } from '../../shared/tools/web.js';

export { timeRanges, type TimeRange } from '../../shared/tools/web.js';

/** One engine's configuration. Holds API keys: build it in the worker and keep it out of workflow inputs and history. */
export type EngineConfig =
  | { engine: 'searxng'; url: string }
  | { engine: 'tavily'; url: string; apiKey: string }
  | { engine: 'bing'; url: string; apiKey: string }
  | { engine: 'duckduckgo'; url: string };

export type EngineConfigOf<Name extends SearchEngineName> = Extract<EngineConfig, { engine: Name }>;

/** What an engine is asked. `maxResults` is already capped (1..30); `now` lets Bing turn "year" into a date range. */
export interface EngineQuery {
  query: string;
  maxResults: number;
  timeRange?: TimeRange;
  now: Date;
}

/** One search result as an engine gave it, before de-duplication. */
export interface SearchHit {
  title: string;
  url: string;
  description: string;
}

export interface HttpRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  body: string;
}

/** An engine adapter: how to ask it, and how to read its answer (throwing SearchEngineError when the answer is no good). */
export interface SearchEngine<Name extends SearchEngineName = SearchEngineName> {
  name: Name;
  /** Human name for messages ("SearXNG"). */
  label: string;
  buildRequest(config: EngineConfigOf<Name>, query: EngineQuery): HttpRequest;
  parseAnswer(answer: HttpAnswer): SearchHit[];
}
