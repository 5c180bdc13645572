import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { sendQueriesOneAtATime } from '../client/access/query-lanes.js';
import type { AddressInfo } from 'node:net';
import type { ArborClient } from '../client/arbor-client.js';
import { apiErrorStatus, handleApi, readJsonBody } from './api.js';
import { defaultAssetsDir, pageHtml, readAsset } from './assets.js';
import { bearerOf, cookieOf, csrfRefusal, isLoopbackHost, newSecret, sameSecret, setSecurityHeaders, tokenCookie } from './security.js';
import type { FeedLimits } from './feed-ring.js';
import { parsePosition, TreeFeeds, type TreeFeed } from './tree-feed.js';
import { TreeViewSources } from './tree-views.js';

export interface ConsoleServerOptions {
  client: ArborClient;
  /** Default 127.0.0.1. Any other than a loopback address requires a token. */
  host?: string;
  /** Default 7300; 0 picks a free port. */
  port?: number;
  /** Required by every request when set; generated when the host is not loopback and none is given. */
  token?: string;
  /** The built page (default: dist/console-page of the package). */
  assetsDir?: string;
  /** The Temporal Web UI's base address, for the links to each member's workflow. */
  webUiBase?: string;
  namespace?: string;
  /** How long a tree's feed stays open after its last tab leaves (default 60 s). */
  feedIdleMs?: number;
  /** How much of each tree's feed is kept for tabs that reconnect (default 20,000 items, 8 MB of JSON). */
  feedLimits?: Partial<FeedLimits>;
}

export interface ConsoleServer {
  /** The address to open (with `?token=` when a token is required: the page then keeps it in a cookie). */
  url: string;
  token: string | undefined;
  /** How many trees are read right now (one feed per tree, whatever the number of tabs). */
  openFeeds: () => number;
  /**
   * Of a watched tree: its tabs, the items its feed keeps, how many member queries its views have sent, and its
   * history long polls (one per member, whatever the number of tabs).
   */
  feedStats: (
    rootId: string,
  ) => { tabs: number; items: number; chars: number; queries: Record<string, number>; longPolls: TreeFeed['longPolls'] } | undefined;
  close: () => Promise<void>;
}

export async function startConsoleServer(options: ConsoleServerOptions): Promise<ConsoleServer> {
  const host = options.host ?? '127.0.0.1';
  const loopback = isLoopbackHost(host);
  const token = options.token ?? (loopback ? undefined : newSecret());
  if (token !== undefined && token.length < 16) throw new Error('The console token must be at least 16 characters.');
  const assetsDir = options.assetsDir ?? defaultAssetsDir;
  const csrfSecret = newSecret();
  // Its feeds and views read the same sessions at once: queries side by side during a workflow task come late.
  sendQueriesOneAtATime(options.client.temporal);
  const views = new TreeViewSources(options.client);
  const feeds = new TreeFeeds(
    (rootId) => options.client.session(rootId),
    newSecret().slice(0, 8),
    options.feedIdleMs,
    options.feedLimits,
    (rootId, feed) => views.attach(rootId, feed),
  );
  const streams = new Set<ServerResponse>();
  let allowedHosts: Set<string> | undefined;

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    setSecurityHeaders(response);
    const url = new URL(request.url ?? '/', 'http://console.invalid');
    // A loopback server answers only to its own names, so a rebound DNS name cannot reach it from a web page.
    if (allowedHosts && !allowedHosts.has(request.headers.host ?? '')) return send(response, 421, { error: 'Unknown Host header.' });
    if (token !== undefined) {
      const given = url.searchParams.get('token');
      if (request.method === 'GET' && given !== null && sameSecret(given, token)) {
        response.setHeader('Set-Cookie', `${tokenCookie}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`);
        response.setHeader('Location', url.pathname);
        return send(response, 303, { ok: true });
      }
      if (!sameSecret(bearerOf(request), token) && !sameSecret(cookieOf(request, tokenCookie), token))
        return send(response, 401, { error: 'This console needs its token: open the address it printed (with ?token=).' });
    }
    const path = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (path[0] === 'api') {
      if (request.method !== 'GET' && request.method !== 'POST') return send(response, 405, { error: 'Only GET and POST.' });
      if (request.method === 'POST') {
        const refusal = csrfRefusal(request, csrfSecret);
        if (refusal) return send(response, 403, { error: refusal });
      }
      if (path[1] === 'trees' && path[3] === 'events' && path[2] && request.method === 'GET') return stream(request, response, path[2]);
      try {
        const body = await handleApi(options.client, views, {
          method: request.method,
          path: path.slice(1),
          query: url.searchParams,
          body: () => readJsonBody(request),
        });
        return send(response, 200, body ?? null);
      } catch (error) {
        const { status, message } = apiErrorStatus(error);
        return send(response, status, { error: message });
      }
    }
    if (request.method !== 'GET') return send(response, 405, { error: 'Only GET.' });
    if (path[0] === 'assets') {
      const asset = await readAsset(assetsDir, url.pathname);
      if (!asset) return send(response, 404, { error: 'No such file.' });
      response.writeHead(200, { 'Content-Type': asset.type, 'Cache-Control': 'public, max-age=31536000, immutable' });
      return void response.end(asset.body);
    }
    const html = await pageHtml(assetsDir, {
      csrf: csrfSecret,
      'web-ui': options.webUiBase ?? '',
      namespace: options.namespace ?? 'default',
    });
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(html);
  };

  const stream = (request: IncomingMessage, response: ServerResponse, rootId: string) => {
    const lastEventId = request.headers['last-event-id'];
    const from = parsePosition(typeof lastEventId === 'string' ? lastEventId : undefined);
    response.writeHead(200, { 'Content-Type': 'text/event-stream', 'X-Accel-Buffering': 'no', Connection: 'keep-alive' });
    response.write('retry: 1000\n\n');
    streams.add(response);
    const feed = feeds.of(rootId);
    const unsubscribe = feed.subscribe(from, (item, index) => {
      response.write(`id: ${feed.epoch}:${index}\ndata: ${JSON.stringify(item)}\n\n`);
    });
    const heartbeat = setInterval(() => response.write(': still here\n\n'), 15_000).unref();
    request.on('close', () => {
      clearInterval(heartbeat);
      unsubscribe();
      streams.delete(response);
    });
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, { error: (error as Error).message });
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 7300, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  if (loopback) allowedHosts = new Set([`${shownHost}:${port}`, `localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]);
  const base = `http://${shownHost}:${port}/`;
  return {
    url: token === undefined ? base : `${base}?token=${encodeURIComponent(token)}`,
    token,
    openFeeds: () => feeds.size,
    feedStats: (rootId) => {
      const feed = feeds.existing(rootId);
      if (!feed) return undefined;
      const queries = Object.fromEntries(views.of(rootId).members.asked);
      return { tabs: feed.listening, ...feed.kept, queries, longPolls: feed.longPolls };
    },
    close: async () => {
      const closing = feeds.closeAll();
      for (const response of streams) response.end();
      await Promise.all([closing, new Promise<void>((resolve) => server.close(() => resolve()))]);
    },
  };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}
