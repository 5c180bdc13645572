import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import ipaddr from 'ipaddr.js';

/** The header every state-changing request must carry, with the per-server secret the page reads from its own HTML. */
export const csrfHeader = 'x-arbor-console-csrf';
export const tokenCookie = 'arbor_console_token';

/**
 * The page runs only its own bundled script and style, talks only to this server, and cannot be framed: model output
 * that slipped through as HTML still could not run or load anything.
 */
export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost') return true;
  if (!ipaddr.isValid(bare)) return false;
  const address = ipaddr.process(bare);
  return address.range() === 'loopback';
}

export function newSecret(): string {
  return randomBytes(24).toString('base64url');
}

export function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function setSecurityHeaders(response: ServerResponse): void {
  response.setHeader('Content-Security-Policy', contentSecurityPolicy);
  response.setHeader('X-Frame-Options', 'DENY');
  response.setHeader('X-Content-Type-Options', 'nosniff');
  response.setHeader('Referrer-Policy', 'no-referrer');
  response.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  response.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  response.setHeader('Cache-Control', 'no-store');
}

export function cookieOf(request: IncomingMessage, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return decodeURIComponent(rest.join('='));
  }
  return undefined;
}

export function bearerOf(request: IncomingMessage): string | undefined {
  const match = /^Bearer (.+)$/.exec(request.headers.authorization ?? '');
  return match?.[1];
}

/**
 * Why a state-changing request is refused, or undefined when it may go on: it must carry the CSRF secret header
 * (a cross-site form or fetch cannot set it), come from this server's own origin when the browser says where from,
 * and send JSON (a cross-site form can only send form encodings or text/plain).
 */
export function csrfRefusal(request: IncomingMessage, csrfSecret: string): string | undefined {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== `http://${request.headers.host ?? ''}`) return `Requests from ${origin} are refused.`;
  const fetchSite = request.headers['sec-fetch-site'];
  if (fetchSite !== undefined && fetchSite !== 'same-origin' && fetchSite !== 'none') return 'Cross-site requests are refused.';
  const header = request.headers[csrfHeader];
  if (!sameSecret(typeof header === 'string' ? header : undefined, csrfSecret)) return `The ${csrfHeader} header is missing or wrong.`;
  const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') return 'The body must be JSON (Content-Type: application/json).';
  return undefined;
}
