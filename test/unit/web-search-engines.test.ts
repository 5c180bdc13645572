import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { searxngSearchUrl } from '../../src/web/search/engines/searxng.js';
import { WebSearchError } from '../../src/web/search/errors.js';
import type { SearchConfig } from '../../src/web/search/config.js';
import type { EngineConfig } from '../../src/web/search/types.js';
import { webSearch } from '../../src/web/search/web-search.js';

// ---- loopback servers imitating the engines -------------------------------------------------------------------

interface Recorded {
  method: string;
  path: string;
  params: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

type Handler = (request: Recorded, response: ServerResponse) => void;

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

async function serve(handler: Handler): Promise<{ url: string; requests: Recorded[] }> {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const recorded: Recorded = {
        method: req.method ?? '',
        path: url.pathname,
        params: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      handler(recorded, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests };
}

function json(status: number, body: unknown): Handler {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    response.end(JSON.stringify(body));
  };
}

function html(status: number, body: string): Handler {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'text/html; charset=UTF-8' });
    response.end(body);
  };
}

function only(engine: EngineConfig): SearchConfig {
  return { engines: [engine], timeoutMs: 5_000 };
}

async function failureOf(promise: Promise<unknown>): Promise<WebSearchError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(WebSearchError);
  return error as WebSearchError;
}

// ---- fixtures -------------------------------------------------------------------------------------------------

const searxngAnswer = {
  query: 'temporal workflow determinism',
  number_of_results: 0,
  results: [
    {
      url: 'https://docs.temporal.io/workflow-definition#deterministic-constraints',
      title: 'Workflow Definition | Temporal Platform Documentation',
      content: 'Workflow code must be deterministic: given the same history, it must issue the same commands.',
      publishedDate: null,
      thumbnail: '',
      engine: 'duckduckgo',
      template: 'default.html',
      parsed_url: ['https', 'docs.temporal.io', '/workflow-definition', '', '', 'deterministic-constraints'],
      engines: ['duckduckgo', 'brave', 'startpage'],
      positions: [1, 1, 2],
      score: 6.5,
      category: 'general',
    },
    {
      url: 'https://community.temporal.io/t/non-determinism-errors/1234',
      title: 'Non-determinism errors after deploy - Community Support',
      content: 'We started getting [TMPRL1100] nondeterminism errors after a code change…',
      publishedDate: '2025-11-02T00:00:00',
      engine: 'brave',
      template: 'default.html',
      parsed_url: ['https', 'community.temporal.io', '/t/non-determinism-errors/1234', '', '', ''],
      engines: ['brave'],
      positions: [3],
      score: 0.33,
      category: 'general',
    },
  ],
  answers: [],
  corrections: [],
  infoboxes: [],
  suggestions: ['temporal workflow versioning'],
  unresponsive_engines: [['google', 'CAPTCHA']],
};

const bingAnswer = {
  _type: 'SearchResponse',
  queryContext: { originalQuery: 'undici fetch timeout' },
  webPages: {
    webSearchUrl: 'https://www.bing.com/search?q=undici+fetch+timeout',
    totalEstimatedMatches: 182000,
    value: [
      {
        id: 'https://api.bing.microsoft.com/api/v7/#WebPages.0',
        name: 'undici - Fetch API | Node.js HTTP/1.1 client',
        url: 'https://undici.nodejs.org/#/docs/api/Fetch',
        isFamilyFriendly: true,
        displayUrl: 'https://undici.nodejs.org/#/docs/api/Fetch',
        snippet: 'Undici implements fetch as specified by the WHATWG standard; pass an AbortSignal to time out.',
        dateLastCrawled: '2026-01-10T08:13:00.0000000Z',
        language: 'en',
        isNavigational: false,
      },
      {
        id: 'https://api.bing.microsoft.com/api/v7/#WebPages.1',
        name: 'AbortSignal.timeout() - Web APIs | MDN',
        url: 'https://developer.mozilla.org/en-US/docs/Web/API/AbortSignal/timeout_static',
        displayUrl: 'https://developer.mozilla.org/en-US/docs/Web/API/AbortSignal/timeout_static',
        snippet: 'The AbortSignal.timeout() static method returns an AbortSignal that will automatically abort after a specified time.',
        dateLastCrawled: '2026-01-09T21:40:00.0000000Z',
        language: 'en',
      },
    ],
  },
  rankingResponse: { mainline: { items: [{ answerType: 'WebPages', resultIndex: 0, value: { id: 'x' } }] } },
};

const tavilyAnswer = {
  query: 'zod 4 release notes',
  follow_up_questions: null,
  answer: null,
  images: [],
  results: [
    {
      title: 'Release notes | Zod',
      url: 'https://zod.dev/v4',
      content: 'Zod 4 is now stable. It is faster, slimmer, and more tsc-efficient than Zod 3.',
      score: 0.91,
      raw_content: null,
    },
    {
      title: 'Migration guide | Zod',
      url: 'https://zod.dev/v4/changelog',
      content: 'This migration guide lists the breaking changes in Zod 4 in order of highest to lowest impact.',
      score: 0.84,
      raw_content: null,
    },
  ],
  response_time: 1.09,
  request_id: '123e4567-e89b-12d3-a456-426614174111',
};

function duckDuckGoPage(results: string): string {
  return `<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" "http://www.w3.org/TR/html4/loose.dtd">
<!--[if IE 6]><html class="ie6" xmlns="http://www.w3.org/1999/xhtml"><![endif]-->
<html xmlns="http://www.w3.org/1999/xhtml">
<head>
  <meta http-equiv="content-type" content="text/html; charset=UTF-8">
  <meta name="referrer" content="origin">
  <title>node html parser at DuckDuckGo</title>
  <link rel="stylesheet" href="/dist/h.8a1e8a0f3c.css" type="text/css">
</head>
<body>
  <div class="header__form">
    <form action="/html/" method="post" id="search_form" name="x">
      <input class="search__input" type="text" name="q" value="node html parser" autocomplete="off">
      <input name="b" type="hidden" value="">
      <select class="frm__select" name="df"><option value="" selected>Any Time</option><option value="d">Past Day</option></select>
    </form>
  </div>
  <div id="links_wrapper">
    <div class="serp__results">
      <div id="links" class="results">
${results}
      </div>
    </div>
  </div>
</body>
</html>`;
}

const duckDuckGoResults = `
        <div class="result results_links results_links_deep result--ad result--ad--small">
          <div class="links_main links_deep result__body">
            <h2 class="result__title">
              <a rel="nofollow" class="result__a" href="https://duckduckgo.com/y.js?ad_domain=parsers.example&amp;ad_provider=bingv7aa&amp;ad_type=txad&amp;u3=https%3A%2F%2Fwww.bing.com%2Faclick">Parse HTML 10x Faster - Try It Free</a>
            </h2>
            <a class="result__snippet" href="https://duckduckgo.com/y.js?ad_domain=parsers.example">Sponsored parser. Start your trial today.</a>
          </div>
        </div>
        <div class="result results_links results_links_deep web-result ">
          <div class="links_main links_deep result__body">
            <h2 class="result__title">
              <a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fwww.npmjs.com%2Fpackage%2Fnode%2Dhtml%2Dparser%3Factivetab%3Dreadme&amp;rut=0f4f1a0f3bd0e3c1b8f7d1d35ecf0bd4b7d93a4c5e5bb1f0f2cf3f53e4d2f0a1">node-html-parser - <b>npm</b></a>
            </h2>
            <div class="result__extras">
              <div class="result__extras__url">
                <span class="result__icon"><a rel="nofollow" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fwww.npmjs.com%2Fpackage%2Fnode%2Dhtml%2Dparser&amp;rut=0f4f"><img class="result__icon__img" width="16" height="16" alt="" src="//external-content.duckduckgo.com/ip3/www.npmjs.com.ico" name="i15" /></a></span>
                <a class="result__url" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fwww.npmjs.com%2Fpackage%2Fnode%2Dhtml%2Dparser&amp;rut=0f4f">www.npmjs.com/package/node-html-parser</a>
              </div>
            </div>
            <a class="result__snippet" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fwww.npmjs.com%2Fpackage%2Fnode%2Dhtml%2Dparser&amp;rut=0f4f">Fast HTML <b>Parser</b> is a very fast HTML parser. It&#x27;ll generate a simplified DOM tree &amp; supports &quot;querySelector&quot;&hellip;</a>
            <div class="clear"></div>
          </div>
        </div>
        <div class="result results_links results_links_deep web-result ">
          <div class="links_main links_deep result__body">
            <h2 class="result__title">
              <a rel="nofollow" class="result__a" href="https://github.com/taoqf/node-html-parser">GitHub - taoqf/node-html-parser: A very fast HTML parser &#8212; generating a simplified DOM</a>
            </h2>
            <a class="result__snippet" href="https://github.com/taoqf/node-html-parser">Caf&eacute;-grade speed: &#169; 2026 &lt;div&gt; trees in <b>milliseconds</b>.</a>
            <div class="clear"></div>
          </div>
        </div>
        <div class="result results_links results_links_deep web-result ">
          <div class="links_main links_deep result__body">
            <h2 class="result__title">
              <a class="result__a" rel="nofollow" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fstackoverflow.com%2Fquestions%2F7977945%2Fhtml%2Dparser%2Don%2Dnode%2Djs&amp;rut=aa11">HTML-parser on Node.js - Stack Overflow</a>
            </h2>
            <div class="result__snippet">Which HTML parser should I use <b>on</b> Node.js?</div>
          </div>
        </div>`;

const duckDuckGoNoResults = `
        <div class="result results_links results_links_deep result--no-result">
          <div class="no-results">No results.</div>
        </div>`;

const duckDuckGoAnomalyPage = `<!DOCTYPE html>
<html lang="en-US">
<head><meta charset="utf-8"><title>DuckDuckGo</title><script src="/anomaly.js?cc=botnet"></script></head>
<body>
  <div class="anomaly-modal__mask">
    <div class="anomaly-modal__modal" data-testid="anomaly-modal">
      <div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div>
      <div class="anomaly-modal__description">Please complete the following challenge to confirm this search was made by a human.</div>
      <form id="challenge-form" action="//duckduckgo.com/anomaly.js?sv=html&amp;cc=botnet" method="POST"></form>
    </div>
  </div>
</body>
</html>`;

// ---- SearXNG ----------------------------------------------------------------------------------------------------

describe('the SearXNG engine', () => {
  it('asks /search for JSON and reads each result into title, url and description', async () => {
    const server = await serve(json(200, searxngAnswer));
    const result = await webSearch({ query: 'temporal workflow determinism' }, only({ engine: 'searxng', url: server.url }));

    expect(server.requests).toHaveLength(1);
    const request = server.requests[0]!;
    expect(request.method).toBe('GET');
    expect(request.path).toBe('/search');
    expect(request.params.get('q')).toBe('temporal workflow determinism');
    expect(request.params.get('format')).toBe('json');
    expect(request.params.has('time_range')).toBe(false);
    expect(result).toEqual({
      query: 'temporal workflow determinism',
      result_count: 2,
      results: [
        {
          title: 'Workflow Definition | Temporal Platform Documentation',
          url: 'https://docs.temporal.io/workflow-definition#deterministic-constraints',
          description: 'Workflow code must be deterministic: given the same history, it must issue the same commands.',
          source: 'searxng',
        },
        {
          title: 'Non-determinism errors after deploy - Community Support',
          url: 'https://community.temporal.io/t/non-determinism-errors/1234',
          description: 'We started getting [TMPRL1100] nondeterminism errors after a code change…',
          source: 'searxng',
        },
      ],
    });
  });

  it('passes the time range under its own name', async () => {
    const server = await serve(json(200, searxngAnswer));
    for (const timeRange of ['day', 'week', 'month', 'year'] as const) {
      await webSearch({ query: 'q', time_range: timeRange }, only({ engine: 'searxng', url: server.url }));
    }
    expect(server.requests.map((request) => request.params.get('time_range'))).toEqual(['day', 'week', 'month', 'year']);
  });

  it('takes either the instance base URL, a path prefix, or the /search endpoint itself', () => {
    expect(searxngSearchUrl('https://searx.example').toString()).toBe('https://searx.example/search');
    expect(searxngSearchUrl('https://searx.example/').toString()).toBe('https://searx.example/search');
    expect(searxngSearchUrl('https://example.org/searx/').toString()).toBe('https://example.org/searx/search');
    expect(searxngSearchUrl('https://searx.example/search').toString()).toBe('https://searx.example/search');
  });

  it('explains a 403 as the json format being switched off on the instance', async () => {
    const server = await serve(html(403, '<html><body>403 Forbidden</body></html>'));
    const error = await failureOf(webSearch({ query: 'q' }, only({ engine: 'searxng', url: server.url })));
    expect(error.attempts).toEqual([{ engine: 'searxng', reason: expect.stringMatching(/HTTP 403.*json format/) }]);
  });

  it('treats an empty answer whose upstream engines were all unresponsive as a failure', async () => {
    const server = await serve(
      json(200, {
        ...searxngAnswer,
        results: [],
        unresponsive_engines: [
          ['google', 'CAPTCHA'],
          ['brave', 'too many requests'],
        ],
      }),
    );
    const error = await failureOf(webSearch({ query: 'q' }, only({ engine: 'searxng', url: server.url })));
    expect(error.attempts[0]?.reason).toContain('google (CAPTCHA)');
    expect(error.attempts[0]?.reason).toContain('brave (too many requests)');
  });
});

// ---- Bing -------------------------------------------------------------------------------------------------------

describe('the Bing engine', () => {
  it('sends the key in Ocp-Apim-Subscription-Key and reads webPages.value', async () => {
    const server = await serve(json(200, bingAnswer));
    const result = await webSearch(
      { query: 'undici fetch timeout', max_results: 5 },
      only({ engine: 'bing', url: `${server.url}/v7.0/search`, apiKey: 'bing-key-123' }),
    );

    const request = server.requests[0]!;
    expect(request.method).toBe('GET');
    expect(request.path).toBe('/v7.0/search');
    expect(request.headers['ocp-apim-subscription-key']).toBe('bing-key-123');
    expect(request.headers.authorization).toBeUndefined();
    expect(request.params.get('q')).toBe('undici fetch timeout');
    expect(request.params.get('count')).toBe('5');
    expect(request.params.has('freshness')).toBe(false);
    expect(result.results).toEqual([
      {
        title: 'undici - Fetch API | Node.js HTTP/1.1 client',
        url: 'https://undici.nodejs.org/#/docs/api/Fetch',
        description: 'Undici implements fetch as specified by the WHATWG standard; pass an AbortSignal to time out.',
        source: 'bing',
      },
      {
        title: 'AbortSignal.timeout() - Web APIs | MDN',
        url: 'https://developer.mozilla.org/en-US/docs/Web/API/AbortSignal/timeout_static',
        description: 'The AbortSignal.timeout() static method returns an AbortSignal that will automatically abort after a specified time.',
        source: 'bing',
      },
    ]);
  });

  it('maps day, week and month to freshness keywords and a year to the date range ending today', async () => {
    const server = await serve(json(200, bingAnswer));
    const config = only({ engine: 'bing', url: server.url, apiKey: 'k' });
    const now = () => new Date('2026-03-15T12:00:00Z');
    for (const timeRange of ['day', 'week', 'month', 'year'] as const) {
      await webSearch({ query: 'q', time_range: timeRange }, config, { now });
    }
    expect(server.requests.map((request) => request.params.get('freshness'))).toEqual(['Day', 'Week', 'Month', '2025-03-15..2026-03-15']);
  });

  it('reads a SearchResponse without webPages as zero results, not a failure', async () => {
    const server = await serve(json(200, { _type: 'SearchResponse', queryContext: { originalQuery: 'zzqxv' } }));
    const result = await webSearch({ query: 'zzqxv' }, only({ engine: 'bing', url: server.url, apiKey: 'k' }));
    expect(result).toEqual({ query: 'zzqxv', result_count: 0, results: [] });
  });

  it("reports a rejected key with Bing's own error message", async () => {
    const server = await serve(
      json(401, {
        _type: 'ErrorResponse',
        errors: [{ code: 'InvalidAuthorization', subCode: 'AuthorizationMissing', message: 'Authorization is required.' }],
      }),
    );
    const error = await failureOf(webSearch({ query: 'q' }, only({ engine: 'bing', url: server.url, apiKey: 'wrong' })));
    expect(error.attempts).toEqual([{ engine: 'bing', reason: expect.stringContaining('HTTP 401') }]);
    expect(error.attempts[0]?.reason).toContain('Authorization is required.');
  });
});

// ---- Tavily -----------------------------------------------------------------------------------------------------

describe('the Tavily engine', () => {
  it('POSTs a JSON body with the query, sends the key as a bearer token and reads results', async () => {
    const server = await serve(json(200, tavilyAnswer));
    const result = await webSearch(
      { query: 'zod 4 release notes', max_results: 7, time_range: 'month' },
      only({ engine: 'tavily', url: `${server.url}/search`, apiKey: 'tvly-secret' }),
    );

    const request = server.requests[0]!;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/search');
    expect(request.headers.authorization).toBe('Bearer tvly-secret');
    expect(request.headers['content-type']).toContain('application/json');
    const body = JSON.parse(request.body) as Record<string, unknown>;
    expect(body).toMatchObject({ query: 'zod 4 release notes', max_results: 7, time_range: 'month' });
    expect(body).not.toHaveProperty('api_key');
    expect(result.results).toEqual([
      {
        title: 'Release notes | Zod',
        url: 'https://zod.dev/v4',
        description: 'Zod 4 is now stable. It is faster, slimmer, and more tsc-efficient than Zod 3.',
        source: 'tavily',
      },
      {
        title: 'Migration guide | Zod',
        url: 'https://zod.dev/v4/changelog',
        description: 'This migration guide lists the breaking changes in Zod 4 in order of highest to lowest impact.',
        source: 'tavily',
      },
    ]);
  });

  it('leaves time_range out for all time and asks for no more than its limit of 20', async () => {
    const server = await serve(json(200, tavilyAnswer));
    await webSearch({ query: 'q', max_results: 30 }, only({ engine: 'tavily', url: server.url, apiKey: 'k' }));
    const body = JSON.parse(server.requests[0]!.body) as Record<string, unknown>;
    expect(body.max_results).toBe(20);
    expect(body).not.toHaveProperty('time_range');
  });

  it('counts its plan limit (HTTP 432) as a usage limit', async () => {
    const server = await serve(json(432, { detail: { error: "This request exceeds your plan's set usage limit." } }));
    const error = await failureOf(webSearch({ query: 'q' }, only({ engine: 'tavily', url: server.url, apiKey: 'k' })));
    expect(error.attempts[0]?.reason).toBe("usage limit reached (HTTP 432: This request exceeds your plan's set usage limit.)");
  });
});

// ---- DuckDuckGo -------------------------------------------------------------------------------------------------

describe('the DuckDuckGo engine', () => {
  it('POSTs the query as a form and reads result links, unwrapping redirects and decoding entities', async () => {
    const server = await serve(html(200, duckDuckGoPage(duckDuckGoResults)));
    const result = await webSearch({ query: 'node html parser' }, only({ engine: 'duckduckgo', url: `${server.url}/html/` }));

    const request = server.requests[0]!;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/html/');
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const form = new URLSearchParams(request.body);
    expect(form.get('q')).toBe('node html parser');
    expect(form.has('df')).toBe(false);

    expect(result.results).toEqual([
      {
        title: 'node-html-parser - npm',
        url: 'https://www.npmjs.com/package/node-html-parser?activetab=readme',
        description: 'Fast HTML Parser is a very fast HTML parser. It\'ll generate a simplified DOM tree & supports "querySelector"…',
        source: 'duckduckgo',
      },
      {
        title: 'GitHub - taoqf/node-html-parser: A very fast HTML parser — generating a simplified DOM',
        url: 'https://github.com/taoqf/node-html-parser',
        description: 'Café-grade speed: © 2026 <div> trees in milliseconds.',
        source: 'duckduckgo',
      },
      {
        title: 'HTML-parser on Node.js - Stack Overflow',
        url: 'https://stackoverflow.com/questions/7977945/html-parser-on-node-js',
        description: 'Which HTML parser should I use on Node.js?',
        source: 'duckduckgo',
      },
    ]);
  });

  it('sends the time range as df=d, w, m or y', async () => {
    const server = await serve(html(200, duckDuckGoPage(duckDuckGoResults)));
    for (const timeRange of ['day', 'week', 'month', 'year'] as const) {
      await webSearch({ query: 'q', time_range: timeRange }, only({ engine: 'duckduckgo', url: server.url }));
    }
    expect(server.requests.map((request) => new URLSearchParams(request.body).get('df'))).toEqual(['d', 'w', 'm', 'y']);
  });

  it('counts a 202 answer as a rate limit', async () => {
    const server = await serve(html(202, duckDuckGoPage('')));
    const error = await failureOf(webSearch({ query: 'q' }, only({ engine: 'duckduckgo', url: server.url })));
    expect(error.attempts).toEqual([{ engine: 'duckduckgo', reason: expect.stringMatching(/^rate limited \(HTTP 202/) }]);
  });

  it('counts the bot-check page as a rate limit even when it comes with 200', async () => {
    const server = await serve(html(200, duckDuckGoAnomalyPage));
    const error = await failureOf(webSearch({ query: 'q' }, only({ engine: 'duckduckgo', url: server.url })));
    expect(error.attempts[0]?.reason).toBe('rate limited (bot check page instead of results)');
  });

  it('counts a page with no readable result as unparseable', async () => {
    const server = await serve(html(200, duckDuckGoPage('<div class="serp__bottom-nav"></div>')));
    const error = await failureOf(webSearch({ query: 'q' }, only({ engine: 'duckduckgo', url: server.url })));
    expect(error.attempts[0]?.reason).toMatch(/^unparseable answer: no results found in the page/);
  });

  it('reads its explicit "No results." block as zero results', async () => {
    const server = await serve(html(200, duckDuckGoPage(duckDuckGoNoResults)));
    const result = await webSearch({ query: 'zzqxv' }, only({ engine: 'duckduckgo', url: server.url }));
    expect(result).toEqual({ query: 'zzqxv', result_count: 0, results: [] });
  });
});
