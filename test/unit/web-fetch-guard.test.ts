import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllowList, type AllowList } from '../../src/web/fetch/address-policy.js';
import { WebFetchError } from '../../src/web/fetch/errors.js';
import { createGuardedLookup, ForbiddenAddressError, type LookupFunction } from '../../src/web/fetch/guarded-agent.js';
import { webFetch, type WebFetchOptions } from '../../src/web/fetch/web-fetch.js';

interface CountingServer {
  port: number;
  connections: () => number;
  requests: () => number;
  close: () => Promise<void>;
}

/** An HTTP server that counts every TCP connection it accepts and answers 200 to any request. */
async function countingServer(host: string, port = 0, handler?: http.RequestListener): Promise<CountingServer> {
  let connections = 0;
  let requests = 0;
  const server = http.createServer((request, response) => {
    requests += 1;
    if (handler) handler(request, response);
    else response.writeHead(200, { 'content-type': 'text/plain' }).end(`reached ${host}`);
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, ipv6Only: false }, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    requests: () => requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface FakeResolver {
  lookup: LookupFunction;
  calls: string[];
}

/** A resolver answering from a table; each entry is a list of answers, one per call (the last one repeats). */
function fakeResolver(table: Record<string, string[] | string[][]>): FakeResolver {
  const calls: string[] = [];
  const seen = new Map<string, number>();
  const lookup: LookupFunction = (hostname, _options, callback) => {
    calls.push(hostname);
    const entry = table[hostname.toLowerCase()];
    if (entry === undefined) {
      const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
      error.code = 'ENOTFOUND';
      setImmediate(() => callback(error, []));
      return;
    }
    const answers: string[][] = Array.isArray(entry[0]) ? (entry as string[][]) : [entry as string[]];
    const index = seen.get(hostname) ?? 0;
    seen.set(hostname, index + 1);
    const answer = answers[Math.min(index, answers.length - 1)] ?? [];
    setImmediate(() =>
      callback(
        null,
        answer.map((address) => ({ address, family: net.isIP(address) })),
      ),
    );
  };
  return { lookup, calls };
}

async function failure(promise: Promise<unknown>): Promise<WebFetchError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(WebFetchError);
    return error as WebFetchError;
  }
  throw new Error('expected webFetch to fail');
}

const PROMPT = 'What is on this page?';

/** Listens on every local address (IPv4 and IPv6), so any loopback form that got through would be counted here. */
let trap: CountingServer;
/** An allowed loopback server that redirects wherever the query asks. */
let redirector: CountingServer;

beforeAll(async () => {
  trap = await countingServer('::');
  redirector = await countingServer('127.0.0.1', 0, (request, response) => {
    const to = new URL(request.url ?? '/', 'http://x').searchParams.get('to') ?? '/';
    response.writeHead(302, { location: to }).end();
  });
});

afterAll(async () => {
  await trap.close();
  await redirector.close();
});

describe('the address guard refuses forbidden targets before any byte is sent', () => {
  const P = () => trap.port;
  type Row = { name: string; url: () => string; resolve?: Record<string, string[]>; allow?: string; lookupExpected?: boolean };
  const rows: Row[] = [
    // Literal addresses, in the notations a URL may use.
    { name: 'IPv4 loopback', url: () => `http://127.0.0.1:${P()}/` },
    { name: 'loopback as a decimal integer', url: () => `http://2130706433:${P()}/` },
    { name: 'loopback in octal', url: () => `http://0177.0.0.1:${P()}/` },
    { name: 'loopback in hex, short form', url: () => `http://0x7f.1:${P()}/` },
    { name: 'loopback as one hex number', url: () => `http://0x7f000001:${P()}/` },
    { name: 'loopback, short form', url: () => `http://127.1:${P()}/` },
    { name: 'another loopback address', url: () => `http://127.0.0.2:${P()}/` },
    { name: 'the unspecified address', url: () => `http://0.0.0.0:${P()}/` },
    { name: 'the unspecified address as 0', url: () => `http://0:${P()}/` },
    { name: 'IPv6 loopback', url: () => `http://[::1]:${P()}/` },
    { name: 'IPv6 unspecified', url: () => `http://[::]:${P()}/` },
    { name: 'IPv4-mapped loopback, dotted', url: () => `http://[::ffff:127.0.0.1]:${P()}/` },
    { name: 'IPv4-mapped loopback, hex', url: () => `http://[::ffff:7f00:1]:${P()}/` },
    { name: 'IPv4-mapped loopback, long form', url: () => `http://[0:0:0:0:0:ffff:7f00:1]:${P()}/` },
    { name: 'NAT64 loopback', url: () => `http://[64:ff9b::127.0.0.1]:${P()}/` },
    { name: 'https to loopback', url: () => `https://127.0.0.1:${P()}/` },
    { name: 'cloud metadata (AWS, GCP, Azure)', url: () => 'http://169.254.169.254/latest/meta-data/' },
    { name: 'cloud metadata in hex', url: () => 'http://0xa9fea9fe/latest/meta-data/' },
    { name: 'cloud metadata as a decimal integer', url: () => 'http://2852039166/' },
    { name: 'cloud metadata in octal', url: () => 'http://0251.0376.0251.0376/' },
    { name: 'cloud metadata, IPv4-mapped', url: () => 'http://[::ffff:169.254.169.254]/' },
    { name: 'cloud metadata, NAT64', url: () => 'http://[64:ff9b::a9fe:a9fe]/' },
    { name: 'AWS metadata over IPv6', url: () => 'http://[fd00:ec2::254]/latest/meta-data/' },
    { name: 'Alibaba metadata', url: () => 'http://100.100.100.200/latest/meta-data/' },
    { name: 'private 10/8', url: () => 'http://10.0.0.1/' },
    { name: 'private 172.16/12', url: () => 'http://172.16.0.1/' },
    { name: 'private 192.168/16', url: () => 'http://192.168.0.1/admin' },
    { name: 'carrier-grade NAT', url: () => 'http://100.64.0.1/' },
    { name: 'link-local', url: () => 'http://169.254.10.20/' },
    { name: 'multicast', url: () => 'http://224.0.0.1/' },
    { name: 'broadcast', url: () => 'http://255.255.255.255/' },
    { name: 'reserved 240/4', url: () => 'http://240.0.0.1/' },
    { name: 'IPv6 link-local', url: () => 'http://[fe80::1]/' },
    { name: 'IPv6 unique-local', url: () => 'http://[fc00::1]/' },
    { name: 'IPv6 unique-local fd', url: () => 'http://[fd12:3456:789a::1]/' },
    { name: 'IPv6 multicast', url: () => 'http://[ff02::1]/' },
    { name: '6to4 form of loopback', url: () => `http://[2002:7f00:1::1]:${P()}/` },
    { name: 'IPv4-mapped private', url: () => 'http://[::ffff:192.168.1.1]/' },
    // Names refused as names.
    { name: 'localhost', url: () => `http://localhost:${P()}/`, lookupExpected: false },
    { name: 'localhost with a trailing dot and capitals', url: () => `http://LocalHost.:${P()}/`, lookupExpected: false },
    { name: 'a subdomain of localhost', url: () => `http://api.localhost:${P()}/`, lookupExpected: false },
    { name: 'GCP metadata name', url: () => 'http://metadata.google.internal/computeMetadata/v1/', lookupExpected: false },
    { name: 'bare metadata name', url: () => 'http://metadata/', lookupExpected: false },
    // Names that resolve to forbidden addresses (checked inside the connection's lookup).
    {
      name: 'a name resolving to loopback',
      url: () => `http://loopback.test:${P()}/`,
      resolve: { 'loopback.test': ['127.0.0.1'] },
      lookupExpected: true,
    },
    {
      name: 'a name resolving to IPv6 loopback',
      url: () => `http://v6.test:${P()}/`,
      resolve: { 'v6.test': ['::1'] },
      lookupExpected: true,
    },
    {
      name: 'a name resolving to mapped loopback',
      url: () => `http://mapped.test:${P()}/`,
      resolve: { 'mapped.test': ['::ffff:127.0.0.1'] },
      lookupExpected: true,
    },
    {
      name: 'a name resolving to 0.0.0.0',
      url: () => `http://zero.test:${P()}/`,
      resolve: { 'zero.test': ['0.0.0.0'] },
      lookupExpected: true,
    },
    {
      name: 'a name resolving to a private address',
      url: () => 'http://intranet.test/',
      resolve: { 'intranet.test': ['10.1.2.3'] },
      lookupExpected: true,
    },
    {
      name: 'a name resolving to cloud metadata',
      url: () => 'http://meta.test/',
      resolve: { 'meta.test': ['169.254.169.254'] },
      lookupExpected: true,
    },
    {
      name: 'a name resolving to carrier-grade NAT',
      url: () => 'http://cgnat.test/',
      resolve: { 'cgnat.test': ['100.64.1.1'] },
      lookupExpected: true,
    },
    {
      name: 'a name resolving to unique-local IPv6',
      url: () => 'http://ula.test/',
      resolve: { 'ula.test': ['fd00::5'] },
      lookupExpected: true,
    },
    {
      name: 'a name resolving to NAT64 metadata',
      url: () => 'http://nat64.test/',
      resolve: { 'nat64.test': ['64:ff9b::a9fe:a9fe'] },
      lookupExpected: true,
    },
    {
      name: 'a name resolving to a public and a private address',
      url: () => `http://mixed.test:${P()}/`,
      resolve: { 'mixed.test': ['93.184.216.34', '127.0.0.1'] },
      lookupExpected: true,
    },
    {
      name: 'a name resolving to public and loopback IPv6',
      url: () => `http://mixed6.test:${P()}/`,
      resolve: { 'mixed6.test': ['2606:2800:220:1::1', '::1'] },
      lookupExpected: true,
    },
    {
      name: 'an https name resolving to loopback',
      url: () => `https://secure.test:${P()}/`,
      resolve: { 'secure.test': ['127.0.0.1'] },
      lookupExpected: true,
    },
    // Redirects from an allowed loopback server to forbidden targets.
    {
      name: 'a redirect to cloud metadata',
      url: () => `http://127.0.0.1:${redirector.port}/?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`,
      allow: '127.0.0.1/32',
    },
    {
      name: 'a redirect to IPv6 loopback',
      url: () => `http://127.0.0.1:${redirector.port}/?to=${encodeURIComponent(`http://[::1]:${P()}/`)}`,
      allow: '127.0.0.1/32',
    },
    {
      name: 'a redirect to another loopback address',
      url: () => `http://127.0.0.1:${redirector.port}/?to=${encodeURIComponent(`http://127.0.0.2:${P()}/`)}`,
      allow: '127.0.0.1/32',
    },
    {
      name: 'a redirect to hex loopback',
      url: () => `http://127.0.0.1:${redirector.port}/?to=${encodeURIComponent(`http://0x7f000002:${P()}/`)}`,
      allow: '127.0.0.1/32',
    },
    {
      name: 'a redirect to mapped loopback',
      url: () => `http://127.0.0.1:${redirector.port}/?to=${encodeURIComponent(`http://[::ffff:127.0.0.2]:${P()}/`)}`,
      allow: '127.0.0.1/32',
    },
    {
      name: 'a redirect to localhost',
      url: () => `http://127.0.0.1:${redirector.port}/?to=${encodeURIComponent(`http://localhost:${P()}/`)}`,
      allow: '127.0.0.1/32',
    },
    {
      name: 'a redirect to a private address',
      url: () => `http://127.0.0.1:${redirector.port}/?to=${encodeURIComponent('http://192.168.0.1/')}`,
      allow: '127.0.0.1/32',
    },
    {
      name: 'a redirect from a host allowed by name to a literal loopback address',
      url: () => `http://localhost:${redirector.port}/?to=${encodeURIComponent(`http://127.0.0.1:${P()}/`)}`,
      allow: 'localhost',
      resolve: { localhost: ['127.0.0.1'] },
    },
  ];

  it('has a table of at least 40 forbidden targets', () => {
    expect(rows.length).toBeGreaterThanOrEqual(40);
  });

  it.each(rows.map((row) => [row.name, row] as const))('refuses %s', async (_name, row) => {
    const resolver = fakeResolver(row.resolve ?? {});
    const options: WebFetchOptions = {
      cache: false,
      timeoutMs: 3_000,
      lookup: resolver.lookup,
      ...(row.allow ? { allow: parseAllowList(row.allow) } : {}),
    };
    const redirectsBefore = redirector.requests();
    const connectionsBefore = trap.connections();
    const error = await failure(webFetch({ url: row.url(), prompt: PROMPT }, options));
    expect(error.code).toBe('FORBIDDEN_ADDRESS');
    expect(error.message).toMatch(/only fetches public internet addresses/);
    expect(error.retryable).toBe(false);
    if (row.lookupExpected === true) expect(resolver.calls.length).toBeGreaterThan(0);
    if (row.lookupExpected === false) expect(resolver.calls).toEqual([]);
    if (row.allow) expect(redirector.requests()).toBe(redirectsBefore + 1);
    expect(trap.connections()).toBe(connectionsBefore);
  });
});

describe('loopback access through the allow list', () => {
  it('reaches loopback only when the allow list opens it', async () => {
    const url = `http://127.0.0.1:${trap.port}/hello`;
    const refused = await failure(webFetch({ url, prompt: PROMPT }, { cache: false }));
    expect(refused.code).toBe('FORBIDDEN_ADDRESS');
    expect(refused.message).toMatch(/127\.0\.0\.1.*loopback/);
    expect(trap.connections()).toBe(0);

    const result = await webFetch({ url, prompt: PROMPT }, { cache: false, allow: parseAllowList('127.0.0.1/32') });
    expect(result).toContain('reached ::');
    expect(trap.requests()).toBe(1);
  });

  it('reaches every loopback notation once a range allows it, proving the refusals above would have connected', async () => {
    const allow = parseAllowList('127.0.0.0/8,::1/128,0.0.0.0/32');
    const before = trap.requests();
    for (const host of ['127.1', '0x7f000002', '[::1]', '[::ffff:127.0.0.1]', '0.0.0.0']) {
      const result = await webFetch({ url: `http://${host}:${trap.port}/`, prompt: PROMPT }, { cache: false, allow });
      expect(result).toContain('reached ::');
    }
    expect(trap.requests()).toBe(before + 5);
  });

  it('opens a host by name without opening its address to other names', async () => {
    const allow = parseAllowList('localhost');
    const result = await webFetch({ url: `http://localhost:${trap.port}/`, prompt: PROMPT }, { cache: false, allow });
    expect(result).toContain('reached ::');
    const connections = trap.connections();
    const refused = await failure(webFetch({ url: `http://127.0.0.1:${trap.port}/`, prompt: PROMPT }, { cache: false, allow }));
    expect(refused.code).toBe('FORBIDDEN_ADDRESS');
    const viaOtherName = fakeResolver({ 'alias.test': ['127.0.0.1'] });
    const alias = await failure(
      webFetch({ url: `http://alias.test:${trap.port}/`, prompt: PROMPT }, { cache: false, allow, lookup: viaOtherName.lookup }),
    );
    expect(alias.code).toBe('FORBIDDEN_ADDRESS');
    expect(trap.connections()).toBe(connections);
  });

  it('accepts a name resolving to an allowed address through the injected resolver', async () => {
    const resolver = fakeResolver({ 'docs.test': ['127.0.0.1'] });
    const result = await webFetch(
      { url: `http://docs.test:${trap.port}/`, prompt: PROMPT },
      { cache: false, allow: parseAllowList('127.0.0.1/32'), lookup: resolver.lookup },
    );
    expect(result).toContain('reached ::');
    expect(resolver.calls).toEqual(['docs.test']);
  });
});

describe('DNS rebinding', () => {
  let allowed: CountingServer;
  let forbidden: CountingServer;
  const allow: AllowList = parseAllowList('127.0.0.1/32');

  beforeAll(async () => {
    allowed = await countingServer('127.0.0.1', 0, (request, response) => {
      if (request.url === '/start') response.writeHead(302, { location: '/next', connection: 'close' }).end();
      else response.writeHead(200, { 'content-type': 'text/plain', connection: 'close' }).end('from the allowed address');
    });
    // Same port, other loopback address: what a rebound name would lead to.
    forbidden = await countingServer('127.0.0.2', allowed.port);
  });

  afterAll(async () => {
    await allowed.close();
    await forbidden.close();
  });

  it('checks the address the connection uses, not an earlier answer: a name that rebinds between hops is refused', async () => {
    const resolver = fakeResolver({ 'rebind.test': [['127.0.0.1'], ['127.0.0.2']] });
    const error = await failure(
      webFetch({ url: `http://rebind.test:${allowed.port}/start`, prompt: PROMPT }, { cache: false, allow, lookup: resolver.lookup }),
    );
    expect(error.code).toBe('FORBIDDEN_ADDRESS');
    expect(error.message).toMatch(/rebind\.test: it resolves to 127\.0\.0\.2, a loopback address/);
    expect(resolver.calls).toEqual(['rebind.test', 'rebind.test']);
    expect(allowed.requests()).toBe(1);
    expect(forbidden.connections()).toBe(0);
  });

  it('resolves once per connection, so a resolver that would answer differently the second time is never consulted twice', async () => {
    const resolver = fakeResolver({ 'once.test': [['127.0.0.1'], ['127.0.0.2']] });
    const result = await webFetch(
      { url: `http://once.test:${allowed.port}/page`, prompt: PROMPT },
      { cache: false, allow, lookup: resolver.lookup },
    );
    expect(result).toContain('from the allowed address');
    expect(resolver.calls).toEqual(['once.test']);
    expect(forbidden.connections()).toBe(0);
  });

  it('would reach the rebound address if it were allowed, so the refusal above is the guard at work', async () => {
    const resolver = fakeResolver({ 'rebind2.test': [['127.0.0.1'], ['127.0.0.2']] });
    const result = await webFetch(
      { url: `http://rebind2.test:${allowed.port}/start`, prompt: PROMPT },
      { cache: false, allow: parseAllowList('127.0.0.1/32,127.0.0.2/32'), lookup: resolver.lookup },
    );
    expect(result).toContain('reached 127.0.0.2');
    expect(forbidden.connections()).toBe(1);
  });

  it('the guarded lookup refuses a public-then-private resolver on its second call, as a socket would make it', async () => {
    const resolver = fakeResolver({ 'flip.test': [['93.184.216.34'], ['10.0.0.7']] });
    const lookup = createGuardedLookup(parseAllowList(''), resolver.lookup);
    const ask = () =>
      new Promise<{ error: Error | null; address: unknown }>((resolve) => {
        lookup('flip.test', { all: false }, (error, address) => resolve({ error, address }));
      });
    const first = await ask();
    expect(first.error).toBeNull();
    expect(first.address).toBe('93.184.216.34');
    const second = await ask();
    expect(second.error).toBeInstanceOf(ForbiddenAddressError);
    expect(second.error?.message).toMatch(/flip\.test: it resolves to 10\.0\.0\.7, a private address/);
  });
});

describe('proxy settings', () => {
  const saved: Record<string, string | undefined> = {};
  const names = ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy', 'NO_PROXY', 'no_proxy'];
  let proxy: CountingServer;
  let target: CountingServer;

  beforeAll(async () => {
    proxy = await countingServer('127.0.0.1');
    target = await countingServer('127.0.0.1');
    for (const name of names) saved[name] = process.env[name];
  });

  afterAll(async () => {
    for (const name of names) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    await proxy.close();
    await target.close();
  });

  it('ignores HTTP_PROXY, HTTPS_PROXY and ALL_PROXY: requests go straight to the guarded target', async () => {
    const proxyUrl = `http://127.0.0.1:${proxy.port}`;
    for (const name of names) process.env[name] = name.toLowerCase().startsWith('no_') ? '' : proxyUrl;
    const result = await webFetch(
      { url: `http://127.0.0.1:${target.port}/`, prompt: PROMPT },
      { cache: false, allow: parseAllowList('127.0.0.1/32') },
    );
    expect(result).toContain('reached 127.0.0.1');
    expect(target.requests()).toBe(1);
    expect(proxy.connections()).toBe(0);
  });

  it('does not let a proxy setting route a forbidden target anywhere', async () => {
    process.env.HTTP_PROXY = `http://127.0.0.1:${proxy.port}`;
    const error = await failure(
      webFetch(
        { url: 'http://169.254.169.254/latest/meta-data/', prompt: PROMPT },
        { cache: false, allow: parseAllowList('127.0.0.1/32') },
      ),
    );
    expect(error.code).toBe('FORBIDDEN_ADDRESS');
    expect(proxy.connections()).toBe(0);
  });
});
