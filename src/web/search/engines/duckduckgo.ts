import { SearchEngineError } from '../errors.js';
import { checkStatus, unparseable } from '../http.js';
import { classTokens, htmlToText, parseAttributes } from '../html.js';
import type { HttpAnswer, SearchEngine, SearchHit, TimeRange } from '../types.js';

export const duckDuckGoDefaultUrl = 'https://html.duckduckgo.com/html/';

const dateFilter: Record<TimeRange, string> = { day: 'd', week: 'w', month: 'm', year: 'y' };

/** Text of DuckDuckGo's bot check ("anomaly") page, which it serves instead of results when it rate-limits. */
const anomalyMarkers = ['anomaly-modal', 'challenge-form', 'bots use duckduckgo too', 'anomaly.js'];

/**
 * DuckDuckGo's keyless HTML results page: POST {url} with the form q=…[&df=d|w|m|y].
 * Results are `div.result` blocks holding `a.result__a` (title; href usually wrapped as
 * //duckduckgo.com/l/?uddg=<encoded url>) and `.result__snippet`. Ads (`result--ad`) are skipped.
 * A 202, a bot-check page or a page with no readable result counts as a failure, so the next engine is tried;
 * only DuckDuckGo's explicit "No results." block is a real empty answer.
 */
export const duckduckgo: SearchEngine<'duckduckgo'> = {
  name: 'duckduckgo',
  label: 'DuckDuckGo',

  buildRequest(config, query) {
    const form = new URLSearchParams({ q: query.query });
    if (query.timeRange) form.set('df', dateFilter[query.timeRange]);
    return {
      url: config.url,
      method: 'POST',
      headers: {
        accept: 'text/html,application/xhtml+xml',
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': 'Mozilla/5.0 (compatible; Arbor web search)',
      },
      body: form.toString(),
    };
  },

  parseAnswer(answer) {
    if (answer.status === 202) {
      throw new SearchEngineError('duckduckgo', 'rate_limited', 'rate limited (HTTP 202, bot check instead of results)', {
        status: answer.status,
      });
    }
    checkStatus('duckduckgo', answer);
    const page = parseDuckDuckGoPage(answer.body);
    if (page.hits.length > 0) return page.hits;
    if (page.noResults) return [];
    if (page.anomaly) {
      throw new SearchEngineError('duckduckgo', 'rate_limited', 'rate limited (bot check page instead of results)', {
        status: answer.status,
      });
    }
    throw unparseableDuckDuckGo(answer);
  },
};

function unparseableDuckDuckGo(answer: HttpAnswer): SearchEngineError {
  return unparseable('duckduckgo', answer, `no results found in the page (${answer.body.length} characters)`);
}

export interface DuckDuckGoPage {
  hits: SearchHit[];
  /** The page says there are no results (a genuine empty answer). */
  noResults: boolean;
  /** The page is DuckDuckGo's bot check. */
  anomaly: boolean;
}

const startTagPattern = /<([a-zA-Z][a-zA-Z0-9]*)\b(?:[^>"']|"[^"]*"|'[^']*')*>/g;

export function parseDuckDuckGoPage(html: string): DuckDuckGoPage {
  const lower = html.toLowerCase();
  const anomaly = anomalyMarkers.some((marker) => lower.includes(marker));
  let noResults = false;

  // Cut the page into result blocks at every element whose class list has the token "result".
  const tags = [...html.matchAll(startTagPattern)].map((match) => ({
    name: (match[1] ?? '').toLowerCase(),
    text: match[0],
    index: match.index ?? 0,
    classes: classTokens(parseAttributes(match[0])),
  }));
  for (const tag of tags) if (tag.classes.includes('no-results') || tag.classes.includes('result--no-result')) noResults = true;

  const blockStarts = tags.filter((tag) => tag.classes.includes('result'));
  const blocks =
    blockStarts.length > 0
      ? blockStarts.map((tag, i) => ({ classes: tag.classes, html: html.slice(tag.index, blockStarts[i + 1]?.index ?? html.length) }))
      : // No result containers (layout change): fall back to one block per title link.
        tags
          .filter((tag) => tag.name === 'a' && tag.classes.includes('result__a'))
          .map((tag, i, links) => ({ classes: [] as string[], html: html.slice(tag.index, links[i + 1]?.index ?? html.length) }));

  const hits: SearchHit[] = [];
  for (const block of blocks) {
    if (block.classes.includes('result--ad') || block.classes.includes('result--no-result')) continue;
    const hit = parseResultBlock(block.html);
    if (hit) hits.push(hit);
  }
  return { hits, noResults, anomaly };
}

function parseResultBlock(block: string): SearchHit | undefined {
  let title: string | undefined;
  let href: string | undefined;
  let description = '';
  for (const match of block.matchAll(startTagPattern)) {
    const attributes = parseAttributes(match[0]);
    const classes = classTokens(attributes);
    const name = (match[1] ?? '').toLowerCase();
    const contentStart = (match.index ?? 0) + match[0].length;
    if (title === undefined && name === 'a' && classes.includes('result__a')) {
      href = attributes.get('href');
      title = htmlToText(innerHtml(block, contentStart, name));
    } else if (!description && classes.includes('result__snippet')) {
      description = htmlToText(innerHtml(block, contentStart, name));
    }
  }
  if (title === undefined || href === undefined) return undefined;
  const url = unwrapDuckDuckGoUrl(href);
  if (!url) return undefined;
  return { title, url, description };
}

/** The content up to the element's closing tag; DuckDuckGo's title and snippet hold only inline tags like <b>. */
function innerHtml(html: string, from: number, tagName: string): string {
  const close = html.toLowerCase().indexOf(`</${tagName}`, from);
  return html.slice(from, close === -1 ? html.length : close);
}

/**
 * Turns a result link into the target URL: unwraps //duckduckgo.com/l/?uddg=<encoded url>, drops DuckDuckGo's
 * own links (ads via y.js and the like) and anything that is not http(s).
 */
export function unwrapDuckDuckGoUrl(href: string): string | undefined {
  let url: URL;
  try {
    url = new URL(href, 'https://duckduckgo.com/');
  } catch {
    return undefined;
  }
  const isDuckDuckGo = url.hostname === 'duckduckgo.com' || url.hostname.endsWith('.duckduckgo.com');
  if (isDuckDuckGo) {
    const target = url.pathname.startsWith('/l/') ? url.searchParams.get('uddg') : null;
    if (!target) return undefined;
    try {
      url = new URL(target);
    } catch {
      return undefined;
    }
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : undefined;
}
