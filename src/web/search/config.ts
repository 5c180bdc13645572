import { bingDefaultUrl } from './engines/bing.js';
import { duckDuckGoDefaultUrl } from './engines/duckduckgo.js';
import { tavilyDefaultUrl } from './engines/tavily.js';
import { SearchConfigError } from './errors.js';
import { searchEngineNames, type EngineConfig, type SearchEngineName } from './types.js';

/**
 * Default failover order: a self-hosted SearXNG first (queries stay on the operator's infrastructure, no quota),
 * then the keyed APIs (Tavily, built for agents, then Bing), and the keyless DuckDuckGo scraper last because it is
 * the least reliable (bot checks, layout changes).
 */
export const defaultEngineOrder: readonly SearchEngineName[] = searchEngineNames;

export const defaultSearchTimeoutMs = 15_000;

/**
 * The engines webSearch tries, in order. Holds API keys: build it in the worker (searchConfigFromEnv) and give it to
 * the activity directly; never pass it through workflow inputs, where it would be recorded in history.
 */
export interface SearchConfig {
  engines: EngineConfig[];
  /** Per-engine timeout; webSearch's options.timeoutMs wins over it. Default 15 s. */
  timeoutMs?: number;
  /** Engines that are not enabled and why, for a startup log line. */
  disabled?: { engine: SearchEngineName; reason: string }[];
}

/**
 * Reads the search configuration from the environment:
 *
 * - `ARBOR_SEARCH_ENGINES`: comma-separated engine names in failover order (case-insensitive). Unset: searxng,
 *   tavily, bing, duckduckgo. When set, only the listed engines are used. An unknown name is a SearchConfigError.
 * - `ARBOR_SEARXNG_URL`: enables SearXNG (base URL of an instance with the json format on; no public default).
 * - `ARBOR_TAVILY_API_KEY` enables Tavily; `ARBOR_TAVILY_URL` defaults to https://api.tavily.com/search.
 * - `ARBOR_BING_API_KEY` enables Bing; `ARBOR_BING_URL` defaults to https://api.bing.microsoft.com/v7.0/search.
 * - `ARBOR_DUCKDUCKGO_URL` defaults to https://html.duckduckgo.com/html/.
 * - `ARBOR_SEARCH_TIMEOUT_MS`: per-engine timeout, default 15000.
 *
 * DuckDuckGo needs no key but is OFF by default: it is enabled only when `duckduckgo` is named in
 * ARBOR_SEARCH_ENGINES or ARBOR_DUCKDUCKGO_URL is set. Turning it on by itself would make every worker, with no
 * configuration at all, send its users' queries (which can carry private context from a session) to a third party
 * the operator never chose, by scraping a page that is not an API and that answers automated traffic with bot checks.
 * Web access is the operator's decision, so an unconfigured worker registers no webSearch tool.
 */
export function searchConfigFromEnv(env: NodeJS.ProcessEnv = process.env): SearchConfig {
  const listed = parseEngineList(env.ARBOR_SEARCH_ENGINES);
  const order = listed ?? defaultEngineOrder;
  const engines: EngineConfig[] = [];
  const disabled: { engine: SearchEngineName; reason: string }[] = [];

  for (const name of order) {
    switch (name) {
      case 'searxng': {
        const url = urlFrom(env, 'ARBOR_SEARXNG_URL');
        if (url) engines.push({ engine: 'searxng', url });
        else disabled.push({ engine: name, reason: 'ARBOR_SEARXNG_URL is not set' });
        break;
      }
      case 'tavily': {
        const apiKey = nonEmpty(env.ARBOR_TAVILY_API_KEY);
        const url = urlFrom(env, 'ARBOR_TAVILY_URL') ?? tavilyDefaultUrl;
        if (apiKey) engines.push({ engine: 'tavily', url, apiKey });
        else disabled.push({ engine: name, reason: 'ARBOR_TAVILY_API_KEY is not set' });
        break;
      }
      case 'bing': {
        const apiKey = nonEmpty(env.ARBOR_BING_API_KEY);
        const url = urlFrom(env, 'ARBOR_BING_URL') ?? bingDefaultUrl;
        if (apiKey) engines.push({ engine: 'bing', url, apiKey });
        else disabled.push({ engine: name, reason: 'ARBOR_BING_API_KEY is not set' });
        break;
      }
      case 'duckduckgo': {
        const configuredUrl = urlFrom(env, 'ARBOR_DUCKDUCKGO_URL');
        if (configuredUrl || listed?.includes('duckduckgo'))
          engines.push({ engine: 'duckduckgo', url: configuredUrl ?? duckDuckGoDefaultUrl });
        else disabled.push({ engine: name, reason: 'off by default: name it in ARBOR_SEARCH_ENGINES or set ARBOR_DUCKDUCKGO_URL' });
        break;
      }
    }
  }

  if (listed) {
    for (const name of searchEngineNames) {
      if (!listed.includes(name) && hasOwnConfiguration(env, name)) {
        disabled.push({ engine: name, reason: 'configured but not listed in ARBOR_SEARCH_ENGINES' });
      }
    }
  }

  const timeout = Number(env.ARBOR_SEARCH_TIMEOUT_MS);
  return {
    engines,
    timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : defaultSearchTimeoutMs,
    disabled,
  };
}

/** Whether the webSearch tool should be offered to the model: at least one engine is enabled. */
export function isSearchConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return searchConfigFromEnv(env).engines.length > 0;
}

/** Engine names in order, duplicates dropped; undefined when the variable is unset or blank. */
function parseEngineList(value: string | undefined): SearchEngineName[] | undefined {
  const names = (value ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  if (names.length === 0) return undefined;
  const unknown = names.filter((name) => !isEngineName(name));
  if (unknown.length > 0) {
    throw new SearchConfigError(
      `ARBOR_SEARCH_ENGINES names unknown search engine${unknown.length > 1 ? 's' : ''} ${unknown.map((name) => `"${name}"`).join(', ')}; known engines: ${searchEngineNames.join(', ')}.`,
    );
  }
  return [...new Set(names as SearchEngineName[])];
}

function isEngineName(name: string): name is SearchEngineName {
  return (searchEngineNames as readonly string[]).includes(name);
}

function hasOwnConfiguration(env: NodeJS.ProcessEnv, name: SearchEngineName): boolean {
  switch (name) {
    case 'searxng':
      return nonEmpty(env.ARBOR_SEARXNG_URL) !== undefined;
    case 'tavily':
      return nonEmpty(env.ARBOR_TAVILY_API_KEY) !== undefined;
    case 'bing':
      return nonEmpty(env.ARBOR_BING_API_KEY) !== undefined;
    case 'duckduckgo':
      return nonEmpty(env.ARBOR_DUCKDUCKGO_URL) !== undefined;
  }
}

function urlFrom(env: NodeJS.ProcessEnv, variable: string): string | undefined {
  const value = nonEmpty(env[variable]);
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new SearchConfigError(`${variable} is not a valid URL: "${value}".`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SearchConfigError(`${variable} must be an http or https URL, not "${value}".`);
  }
  return value;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
