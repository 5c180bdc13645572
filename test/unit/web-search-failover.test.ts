import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { SearchConfig } from '../../src/web/search/config.js';
import { WebSearchError, WebSearchInputError } from '../../src/web/search/errors.js';
import type { EngineConfig } from '../../src/web/search/types.js';
import { webSearch, type EngineFailure } from '../../src/web/search/web-search.js';

type Handler = (body: string, response: ServerResponse) => void;

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

/** A loopback server answering every request with `handler`; `hits` counts the requests it got. */
async function serve(handler: Handler): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits += 1;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handler(Buffer.concat(chunks).toString('utf8'), res));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, hits: () => hits };
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

const reply =
  (status: number, body: string, contentType = 'application/json'): Handler =>
  (_body, response) => {
    response.writeHead(status, { 'content-type': contentType });
    response.end(body);
  };

const never: Handler = () => {
  // Holds the request open: the client's timeout must end it.
};

function searxngResults(count: number, host = 'example.com'): string {
  return JSON.stringify({
    query: 'q',
    results: Array.from({ length: count }, (_, i) => ({
      url: `https://${host}/page/${i + 1}`,
      title: `Page ${i + 1}`,
      content: `Snippet ${i + 1}`,
      engine: 'bing',
    })),
    unresponsive_engines: [],
  });
}

const bingResults = JSON.stringify({
  _type: 'SearchResponse',
  webPages: { value: [{ name: 'From Bing', url: 'https://bing.example/answer', snippet: 'Bing answered.' }] },
});

function config(...engines: EngineConfig[]): SearchConfig {
  return { engines, timeoutMs: 5_000 };
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the search to fail');
    },
    (caught: unknown) => caught,
  );
}

describe('webSearch failover', () => {
  const firstFailures: [string, Handler, RegExp][] = [
    ['answers 500', reply(500, '{"detail":"internal error"}'), /^HTTP 500/],
    ['is rate limited with 429', reply(429, 'Too Many Requests', 'text/plain'), /^rate limited \(HTTP 429/],
    [
      'answers a body that is not JSON',
      reply(200, '<html><body>Maintenance</body></html>', 'text/html'),
      /^answer is not JSON \(text\/html/,
    ],
    ['answers JSON without results', reply(200, '{"message":"hello"}'), /^unparseable answer: no results array/],
  ];

  for (const [what, handler, reason] of firstFailures) {
    it(`moves on to the second engine when the first ${what}, and names the second as the source`, async () => {
      const first = await serve(handler);
      const second = await serve(reply(200, bingResults));
      const failures: EngineFailure[] = [];
      const result = await webSearch(
        { query: 'q' },
        config({ engine: 'searxng', url: first.url }, { engine: 'bing', url: second.url, apiKey: 'k' }),
        { onEngineFailure: (failure) => failures.push(failure) },
      );
      expect(first.hits()).toBe(1);
      expect(result).toEqual({
        query: 'q',
        result_count: 1,
        results: [{ title: 'From Bing', url: 'https://bing.example/answer', description: 'Bing answered.', source: 'bing' }],
      });
      expect(failures).toEqual([{ engine: 'searxng', reason: expect.stringMatching(reason), kind: expect.any(String) }]);
    });
  }

  it('moves on when the first engine does not answer within the configured timeout', async () => {
    const first = await serve(never);
    const second = await serve(reply(200, bingResults));
    const started = Date.now();
    const failures: EngineFailure[] = [];
    const result = await webSearch(
      { query: 'q' },
      config({ engine: 'searxng', url: first.url }, { engine: 'bing', url: second.url, apiKey: 'k' }),
      { timeoutMs: 150, onEngineFailure: (failure) => failures.push(failure) },
    );
    expect(result.results[0]?.source).toBe('bing');
    expect(failures).toEqual([{ engine: 'searxng', reason: 'timed out after 150 ms', kind: 'timeout' }]);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('moves on when nothing listens at the first engine', async () => {
    const first = await closedPort();
    const second = await serve(reply(200, bingResults));
    const failures: EngineFailure[] = [];
    const result = await webSearch(
      { query: 'q' },
      config({ engine: 'tavily', url: first, apiKey: 'k' }, { engine: 'bing', url: second.url, apiKey: 'k' }),
      { onEngineFailure: (failure) => failures.push(failure) },
    );
    expect(result.results[0]?.source).toBe('bing');
    expect(failures).toEqual([{ engine: 'tavily', reason: expect.stringContaining('ECONNREFUSED'), kind: 'network' }]);
  });

  it("asks the next engine when the first has no results, and returns the next one's", async () => {
    const first = await serve(reply(200, searxngResults(0)));
    const second = await serve(reply(200, bingResults));
    const result = await webSearch(
      { query: 'q' },
      config({ engine: 'searxng', url: first.url }, { engine: 'bing', url: second.url, apiKey: 'k' }),
    );
    expect(first.hits()).toBe(1);
    expect(result.results.map((item) => item.source)).toEqual(['bing']);
  });

  it('returns zero results, not an error, when every engine that answered had none', async () => {
    const first = await serve(reply(500, 'oops', 'text/plain'));
    const second = await serve(reply(200, searxngResults(0)));
    const result = await webSearch(
      { query: 'q' },
      config({ engine: 'bing', url: first.url, apiKey: 'k' }, { engine: 'searxng', url: second.url }),
    );
    expect(result).toEqual({ query: 'q', result_count: 0, results: [] });
  });

  it('does not ask the second engine once the first has answered', async () => {
    const first = await serve(reply(200, searxngResults(3)));
    const second = await serve(reply(200, bingResults));
    const result = await webSearch(
      { query: 'q' },
      config({ engine: 'searxng', url: first.url }, { engine: 'bing', url: second.url, apiKey: 'k' }),
    );
    expect(result.results.every((item) => item.source === 'searxng')).toBe(true);
    expect(second.hits()).toBe(0);
  });

  it('throws one WebSearchError naming every engine and why it failed when all fail', async () => {
    const searxng = await serve(reply(503, 'Service Unavailable', 'text/plain'));
    const tavily = await serve(reply(401, '{"detail":{"error":"Unauthorized: missing or invalid API key."}}'));
    const bing = await serve(never);
    const duckduckgo = await serve(reply(202, '<html><body></body></html>', 'text/html'));

    const error = await failureOf(
      webSearch(
        { query: 'q' },
        config(
          { engine: 'searxng', url: searxng.url },
          { engine: 'tavily', url: tavily.url, apiKey: 'bad' },
          { engine: 'bing', url: bing.url, apiKey: 'k' },
          { engine: 'duckduckgo', url: duckduckgo.url },
        ),
        { timeoutMs: 150 },
      ),
    );

    expect(error).toBeInstanceOf(WebSearchError);
    const failure = error as WebSearchError;
    expect(failure.attempts).toEqual([
      { engine: 'searxng', reason: 'HTTP 503' },
      { engine: 'tavily', reason: 'refused the request (HTTP 401: Unauthorized: missing or invalid API key.)' },
      { engine: 'bing', reason: 'timed out after 150 ms' },
      { engine: 'duckduckgo', reason: 'rate limited (HTTP 202, bot check instead of results)' },
    ]);
    expect(failure.message).toBe(
      'Web search failed: every search engine failed (searxng: HTTP 503; ' +
        'tavily: refused the request (HTTP 401: Unauthorized: missing or invalid API key.); ' +
        'bing: timed out after 150 ms; duckduckgo: rate limited (HTTP 202, bot check instead of results)).',
    );
    expect(failure.message).not.toContain('bad');
  });

  it('throws a WebSearchError saying so when no engine is configured', async () => {
    const error = await failureOf(webSearch({ query: 'q' }, config()));
    expect(error).toBeInstanceOf(WebSearchError);
    expect((error as WebSearchError).message).toBe('Web search failed: no search engine is configured.');
    expect((error as WebSearchError).attempts).toEqual([]);
  });

  it("stops without trying the next engine when the caller's signal aborts", async () => {
    const first = await serve(never);
    const second = await serve(reply(200, bingResults));
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('activity cancelled')), 100);
    const error = await failureOf(
      webSearch({ query: 'q' }, config({ engine: 'searxng', url: first.url }, { engine: 'bing', url: second.url, apiKey: 'k' }), {
        signal: controller.signal,
      }),
    );
    expect(error).toEqual(new Error('activity cancelled'));
    expect(second.hits()).toBe(0);
  });
});

describe('webSearch results', () => {
  it('returns 10 results by default', async () => {
    const server = await serve(reply(200, searxngResults(25)));
    const result = await webSearch({ query: 'q' }, config({ engine: 'searxng', url: server.url }));
    expect(result.result_count).toBe(10);
    expect(result.results).toHaveLength(10);
    expect(result.results[9]?.url).toBe('https://example.com/page/10');
  });

  it('returns no more than max_results', async () => {
    const server = await serve(reply(200, searxngResults(25)));
    const result = await webSearch({ query: 'q', max_results: 3 }, config({ engine: 'searxng', url: server.url }));
    expect(result.results.map((item) => item.url)).toEqual([
      'https://example.com/page/1',
      'https://example.com/page/2',
      'https://example.com/page/3',
    ]);
    expect(result.result_count).toBe(3);
  });

  it('caps max_results at 30', async () => {
    const server = await serve(reply(200, searxngResults(45)));
    const result = await webSearch({ query: 'q', max_results: 100 }, config({ engine: 'searxng', url: server.url }));
    expect(result.result_count).toBe(30);
  });

  it('drops repeated URLs (fragments aside) and non-web links before counting', async () => {
    const body = JSON.stringify({
      results: [
        { url: 'https://a.example/doc', title: 'A', content: 'first' },
        { url: 'https://a.example/doc#section-2', title: 'A again', content: 'same page' },
        { url: 'javascript:alert(1)', title: 'Bad', content: '' },
        { url: 'https://b.example/', title: '', content: '  spaced \n  out  ' },
        { url: 'https://c.example/', title: 'C', content: 'third' },
      ],
    });
    const server = await serve(reply(200, body));
    const result = await webSearch({ query: 'q', max_results: 3 }, config({ engine: 'searxng', url: server.url }));
    expect(result.results).toEqual([
      { title: 'A', url: 'https://a.example/doc', description: 'first', source: 'searxng' },
      { title: 'https://b.example/', url: 'https://b.example/', description: 'spaced out', source: 'searxng' },
      { title: 'C', url: 'https://c.example/', description: 'third', source: 'searxng' },
    ]);
  });

  it('returns the query as the model wrote it', async () => {
    const server = await serve(reply(200, searxngResults(1)));
    const result = await webSearch({ query: 'rust async book 2026' }, config({ engine: 'searxng', url: server.url }));
    expect(result.query).toBe('rust async book 2026');
  });

  it('refuses an empty query and an unknown time range before asking any engine', async () => {
    const server = await serve(reply(200, searxngResults(1)));
    await expect(webSearch({ query: '   ' }, config({ engine: 'searxng', url: server.url }))).rejects.toBeInstanceOf(WebSearchInputError);
    await expect(webSearch({ query: 'q', time_range: 'decade' as never }, config({ engine: 'searxng', url: server.url }))).rejects.toThrow(
      /time_range must be one of day, week, month, year/,
    );
    expect(server.hits()).toBe(0);
  });
});
