import type { EngineConfig, EngineQuery, HttpRequest, SearchEngine, SearchEngineName } from '../types.js';
import { bing } from './bing.js';
import { duckduckgo } from './duckduckgo.js';
import { searxng } from './searxng.js';
import { tavily } from './tavily.js';

export const searchEngines: { readonly [Name in SearchEngineName]: SearchEngine<Name> } = { searxng, tavily, bing, duckduckgo };

/** The request one configured engine gets for a query. */
export function buildEngineRequest(config: EngineConfig, query: EngineQuery): HttpRequest {
  switch (config.engine) {
    case 'searxng':
      return searxng.buildRequest(config, query);
    case 'tavily':
      return tavily.buildRequest(config, query);
    case 'bing':
      return bing.buildRequest(config, query);
    case 'duckduckgo':
      return duckduckgo.buildRequest(config, query);
  }
}

export { bing, bingDefaultUrl, bingFreshness } from './bing.js';
export { duckduckgo, duckDuckGoDefaultUrl, parseDuckDuckGoPage, unwrapDuckDuckGoUrl } from './duckduckgo.js';
export { searxng, searxngSearchUrl } from './searxng.js';
export { tavily, tavilyDefaultUrl } from './tavily.js';
