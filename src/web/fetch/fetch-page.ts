/**
 * One guarded page download: URL checks, manual redirects (same host followed, other hosts reported),
 * an overall timeout, content-type screening before the body is read, and a size cap enforced while streaming
 * (after decompression, so a small compressed body cannot expand past it).
 */
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Dispatcher } from 'undici';
import { EMPTY_ALLOW_LIST, hostRefusal, type AllowList } from './address-policy.js';
import { WebFetchError } from './errors.js';
import { checkLink, type LinkProblem } from '../../shared/links.js';
import { findForbiddenAddressError } from './guarded-agent.js';

export const DEFAULT_MAX_URL_LENGTH = 2_000;
export const DEFAULT_TIMEOUT_MS = 60_000;
/** 10 MB. */
export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
export const DEFAULT_MAX_REDIRECTS = 5;
export const DEFAULT_USER_AGENT = 'Mozilla/5.0 (compatible; Arbor-WebFetch/0.1)';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** How the content of a response will be read. */
export type ContentKind = 'html' | 'text' | 'json' | 'unknown';

const TEXT_APPLICATION_TYPES = new Set([
  'application/xml',
  'application/javascript',
  'application/ecmascript',
  'application/x-javascript',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/x-ndjson',
  'application/x-sh',
  'application/sql',
  'application/graphql',
  'application/x-www-form-urlencoded',
]);

/**
 * Classifies a media type (lower case, without parameters): html, text (passed through), json (passed through),
 * unknown (missing or generic binary: decided by looking at the bytes), or null for a type webFetch cannot read.
 */
export function classifyContentType(mediaType: string): ContentKind | null {
  if (mediaType === '' || mediaType === 'application/octet-stream' || mediaType === 'binary/octet-stream') return 'unknown';
  if (mediaType === 'text/html' || mediaType === 'application/xhtml+xml') return 'html';
  if (mediaType === 'application/json' || mediaType.endsWith('+json') || mediaType === 'text/json') return 'json';
  if (mediaType.startsWith('text/')) return 'text';
  if (mediaType.endsWith('+xml') || TEXT_APPLICATION_TYPES.has(mediaType)) return 'text';
  return null;
}

/** Splits a Content-Type header into its media type (lower case) and charset. */
export function parseContentType(header: string | undefined): { mediaType: string; charset: string | undefined } {
  if (header === undefined) return { mediaType: '', charset: undefined };
  const [type = '', ...params] = header.split(';');
  let charset: string | undefined;
  for (const param of params) {
    const match = /^\s*charset\s*=\s*"?([^";\s]+)"?\s*$/i.exec(param);
    if (match?.[1]) charset = match[1].toLowerCase();
  }
  const mediaType = type.trim().toLowerCase();
  // Anything but a well-formed type/subtype is treated as missing (and the content sniffed).
  return { mediaType: /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(mediaType) ? mediaType : '', charset };
}

/**
 * Checks and normalises a URL the model asked for: at most `maxLength` characters, http or https, no credentials.
 * The fragment is dropped (it is never sent).
 */
export function parseFetchUrl(input: string, maxLength = DEFAULT_MAX_URL_LENGTH): URL {
  const text = input.trim();
  if (text.length === 0) throw new WebFetchError('INVALID_URL', 'The URL is empty; give a fully-formed http:// or https:// URL.');
  if (text.length > maxLength) {
    throw new WebFetchError(
      'URL_TOO_LONG',
      `The URL is ${text.length} characters long; webFetch accepts URLs of at most ${maxLength} characters.`,
    );
  }
  const checked = checkLink(text);
  if (!checked.ok) {
    const messages: Record<LinkProblem, string> = {
      INVALID_URL: `"${text}" is not a valid URL; give a fully-formed http:// or https:// URL.`,
      UNSUPPORTED_SCHEME: `webFetch only fetches http:// and https:// URLs, not ${checked.scheme}: URLs.`,
      CREDENTIALS_IN_URL: 'webFetch does not fetch URLs with embedded credentials (user:password@); it only reads public pages.',
    };
    throw new WebFetchError(checked.problem, messages[checked.problem]);
  }
  const url = checked.url;
  url.hash = '';
  return url;
}

function assertHostPermitted(url: URL, allow: AllowList, context: string): void {
  const refusal = hostRefusal(url.hostname, allow);
  if (refusal !== null) {
    throw new WebFetchError(
      'FORBIDDEN_ADDRESS',
      `${context} ${url.hostname}, which webFetch may not reach (${refusal}). webFetch only fetches public internet addresses.`,
    );
  }
}

export interface FetchPageOptions {
  /** The dispatcher every request goes through: a guarded agent. Never the global one. */
  dispatcher: Dispatcher;
  /** Used for the early host checks (literal addresses, refused names); the dispatcher enforces the policy too. */
  allow?: AllowList;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  maxUrlLength?: number;
  signal?: AbortSignal;
  userAgent?: string;
}

export interface FetchedPage {
  kind: 'page';
  /** The URL asked for (normalised). */
  requestedUrl: string;
  /** The URL the content came from, after same-host redirects. */
  url: string;
  /** The same-host redirects followed, in order. */
  redirects: string[];
  status: number;
  /** Media type, lower case, '' when the response had none. */
  mediaType: string;
  charset: string | undefined;
  contentKind: ContentKind;
  body: Buffer;
}

export interface CrossHostRedirect {
  kind: 'redirect';
  requestedUrl: string;
  /** The URL that answered with the redirect. */
  fromUrl: string;
  /** Where it points: on another host, so not followed. */
  redirectUrl: string;
  status: number;
}

export type FetchPageResult = FetchedPage | CrossHostRedirect;

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function megabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return Number.isInteger(mb) ? `${mb} MB` : bytes >= 1024 * 1024 ? `${mb.toFixed(1)} MB` : `${bytes} bytes`;
}

function tooLarge(maxBytes: number, detail: string): WebFetchError {
  return new WebFetchError(
    'TOO_LARGE',
    `The content ${detail} is larger than webFetch's limit of ${megabytes(maxBytes)}; reading stopped. ` +
      'Try a more specific URL (a single page, section or raw file).',
  );
}

async function readCapped(body: Readable, contentEncoding: string | undefined, maxBytes: number): Promise<Buffer> {
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  let stream: Readable = body;
  if (encoding !== '' && encoding !== 'identity') {
    const decompressor =
      encoding === 'gzip' || encoding === 'x-gzip'
        ? createGunzip()
        : encoding === 'deflate'
          ? createInflate()
          : encoding === 'br'
            ? createBrotliDecompress()
            : undefined;
    if (decompressor === undefined) {
      body.destroy();
      throw new WebFetchError(
        'UNSUPPORTED_CONTENT_ENCODING',
        `The server sent the content with an encoding webFetch cannot decode (${encoding}).`,
      );
    }
    body.on('error', (error) => decompressor.destroy(error));
    stream = body.pipe(decompressor);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      total += buffer.length;
      if (total > maxBytes) throw tooLarge(maxBytes, 'of this URL');
      chunks.push(buffer);
    }
  } finally {
    if (!body.destroyed && !body.readableEnded) body.destroy();
    if (stream !== body && !stream.destroyed) stream.destroy();
  }
  return Buffer.concat(chunks, total);
}

function discard(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}

/**
 * Downloads a URL through the given (guarded) dispatcher. Returns the page, or a cross-host redirect that was not
 * followed. Throws WebFetchError for every failure, with a message meant for the model.
 */
export async function fetchPage(input: string, options: FetchPageOptions): Promise<FetchPageResult> {
  const allow = options.allow ?? EMPTY_ALLOW_LIST;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const maxUrlLength = options.maxUrlLength ?? DEFAULT_MAX_URL_LENGTH;
  const requested = parseFetchUrl(input, maxUrlLength);
  assertHostPermitted(requested, allow, 'The URL points to');

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`webFetch timed out after ${timeoutMs} ms`));
  }, timeoutMs);
  const onOuterAbort = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) onOuterAbort();
  else options.signal?.addEventListener('abort', onOuterAbort, { once: true });

  const translate = (error: unknown): WebFetchError => {
    if (timedOut) {
      return new WebFetchError('TIMEOUT', `Fetching ${requested.href} timed out after ${timeoutMs / 1000} seconds.`, { cause: error });
    }
    if (error instanceof WebFetchError) return error;
    if (controller.signal.aborted) return new WebFetchError('ABORTED', 'The fetch was cancelled.', { cause: error });
    const forbidden = findForbiddenAddressError(error);
    if (forbidden) {
      return new WebFetchError('FORBIDDEN_ADDRESS', `${forbidden.message}. webFetch only fetches public internet addresses.`, {
        cause: error,
      });
    }
    const code = (error as { code?: unknown }).code;
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
    const detail = [code, cause?.code, (error as Error).message].filter((part) => typeof part === 'string' && part !== '');
    return new WebFetchError('NETWORK', `Fetching ${requested.href} failed: ${detail.join(': ') || String(error)}.`, {
      cause: error,
    });
  };

  const redirects: string[] = [];
  let current = requested;
  try {
    for (;;) {
      const response = await options.dispatcher.request({
        origin: current.origin,
        path: `${current.pathname}${current.search}`,
        method: 'GET',
        headers: {
          'user-agent': options.userAgent ?? DEFAULT_USER_AGENT,
          accept: 'text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.5',
          'accept-encoding': 'gzip, br',
          'accept-language': 'en-US,en;q=0.9',
        },
        signal: controller.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const headers = response.headers as Record<string, string | string[] | undefined>;
      const location = header(headers, 'location');
      if (REDIRECT_STATUSES.has(response.statusCode) && location !== undefined) {
        discard(response.body);
        let next: URL;
        try {
          next = new URL(location, current);
        } catch {
          throw new WebFetchError('BAD_REDIRECT', `${current.href} redirects to an invalid URL (${location.slice(0, 200)}).`);
        }
        next.hash = '';
        if (next.protocol !== 'http:' && next.protocol !== 'https:') {
          throw new WebFetchError(
            'BAD_REDIRECT',
            `${current.href} redirects to a ${next.protocol.replace(/:$/, '')}: URL, which webFetch does not follow.`,
          );
        }
        if (next.username !== '' || next.password !== '') {
          throw new WebFetchError('BAD_REDIRECT', `${current.href} redirects to a URL with embedded credentials.`);
        }
        if (next.href.length > maxUrlLength) {
          throw new WebFetchError(
            'BAD_REDIRECT',
            `${current.href} redirects to a URL longer than ${maxUrlLength} characters, which webFetch does not follow.`,
          );
        }
        assertHostPermitted(next, allow, `${current.href} redirects to`);
        if (next.host !== current.host) {
          return {
            kind: 'redirect',
            requestedUrl: requested.href,
            fromUrl: current.href,
            redirectUrl: next.href,
            status: response.statusCode,
          };
        }
        if (redirects.length >= maxRedirects) {
          throw new WebFetchError(
            'TOO_MANY_REDIRECTS',
            `${requested.href} redirected more than ${maxRedirects} times (last to ${next.href}); webFetch stopped following.`,
          );
        }
        redirects.push(next.href);
        current = next;
        continue;
      }
      if (response.statusCode < 200 || response.statusCode > 299) {
        discard(response.body);
        const status = response.statusCode;
        const retryable = status === 408 || status === 425 || status === 429 || status >= 500;
        const hint =
          status === 401 || status === 403
            ? ' The page may need a login, which webFetch cannot provide.'
            : status === 404 || status === 410
              ? ' The page does not exist at this address.'
              : '';
        throw new WebFetchError('HTTP_STATUS', `${current.href} answered HTTP ${status}.${hint}`, { retryable, status });
      }
      const { mediaType, charset } = parseContentType(header(headers, 'content-type'));
      const contentKind = classifyContentType(mediaType);
      if (contentKind === null) {
        discard(response.body);
        throw new WebFetchError(
          'UNSUPPORTED_CONTENT_TYPE',
          `${current.href} returned content of type ${mediaType}, which webFetch cannot read (it reads HTML, text and JSON).`,
        );
      }
      const declared = Number(header(headers, 'content-length'));
      if (Number.isFinite(declared) && declared > maxBytes) {
        discard(response.body);
        throw tooLarge(maxBytes, `of this URL (${megabytes(declared)} declared)`);
      }
      const body = await readCapped(response.body, header(headers, 'content-encoding'), maxBytes);
      return {
        kind: 'page',
        requestedUrl: requested.href,
        url: current.href,
        redirects,
        status: response.statusCode,
        mediaType,
        charset,
        contentKind,
        body,
      };
    }
  } catch (error) {
    throw translate(error);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onOuterAbort);
  }
}
