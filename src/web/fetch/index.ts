export {
  addressRefusal,
  allowListFromEnv,
  EMPTY_ALLOW_LIST,
  forbiddenAddressReason,
  forbiddenHostNameReason,
  hostRefusal,
  isAddressAllowed,
  isHostNameAllowed,
  parseAllowList,
  parseIpAddress,
  type AllowList,
} from './address-policy.js';
export { WebFetchError, type WebFetchErrorCode } from './errors.js';
export { EXTRACTION_SYSTEM_PROMPT, ExtractionInputTooLong, extractionMessages, type Extractor } from './extraction.js';
export {
  classifyContentType,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_REDIRECTS,
  DEFAULT_MAX_URL_LENGTH,
  DEFAULT_TIMEOUT_MS,
  fetchPage,
  parseFetchUrl,
  type CrossHostRedirect,
  type FetchedPage,
  type FetchPageOptions,
  type FetchPageResult,
} from './fetch-page.js';
export {
  createGuardedAgent,
  createGuardedLookup,
  findForbiddenAddressError,
  ForbiddenAddressError,
  systemLookup,
  type GuardedAgentOptions,
  type LookupCallback,
  type LookupFunction,
  type LookupOptions,
} from './guarded-agent.js';
export { DEFAULT_CACHE_TTL_MS, PageCache, type CachedPage, type PageCacheOptions } from './page-cache.js';
export { htmlToMarkdown, type HtmlToMarkdownOptions, type MarkdownPage } from './to-markdown.js';
export {
  DEFAULT_EXTRACTION_THRESHOLD_BYTES,
  DEFAULT_EXTRACTOR_INPUT_MAX_BYTES,
  sharedPageCache,
  truncateUtf8,
  webFetch,
  type WebFetchInput,
  type WebFetchOptions,
} from './web-fetch.js';
