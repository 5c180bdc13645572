export { defaultEngineOrder, defaultSearchTimeoutMs, isSearchConfigured, searchConfigFromEnv, type SearchConfig } from './config.js';
export {
  SearchConfigError,
  SearchEngineError,
  WebSearchError,
  WebSearchInputError,
  type EngineAttempt,
  type EngineFailureKind,
} from './errors.js';
export { searchEngineNames, timeRanges, type EngineConfig, type SearchEngineName, type TimeRange } from './types.js';
export {
  defaultMaxResults,
  maxMaxResults,
  webSearch,
  type EngineFailure,
  type WebSearchInput,
  type WebSearchOptions,
  type WebSearchResult,
  type WebSearchResultItem,
} from './web-search.js';
