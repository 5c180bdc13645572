import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArborClient } from '../../src/client/arbor-client.js';
import { startConsoleServer, type ConsoleServer } from '../../src/console/server.js';
import { buildConsolePage } from '../support/console-page.js';
import { devServerSettings } from '../support/connection.js';

const csrfOf = (html: string) => /<meta name="arbor-csrf" content="([^"]+)">/.exec(html)?.[1] ?? '';

describe('the console server', () => {
  let client: ArborClient;
  let assetsDir: string;
  let loopback: ConsoleServer;
  let csrf: string;

  beforeAll(async () => {
    [client, assetsDir] = await Promise.all([ArborClient.fromSettings(devServerSettings()), buildConsolePage()]);
    loopback = await startConsoleServer({ client, port: 0, assetsDir });
    csrf = csrfOf(await (await fetch(loopback.url)).text());
  });

  afterAll(async () => {
    await loopback?.close();
    await client?.close();
    if (assetsDir) await rm(dirname(assetsDir), { recursive: true, force: true });
  });

  it('listens on 127.0.0.1 by default and asks for no token there', async () => {
    expect(loopback.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(loopback.token).toBeUndefined();
    const response = await fetch(loopback.url);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<div id="app">');
  });

  it('sends a strict CSP that forbids framing, and X-Frame-Options DENY, on pages and API answers alike', async () => {
    for (const path of ['', 'api/sessions']) {
      const response = await fetch(new URL(path, loopback.url));
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('answers only to its own host names on loopback, so a rebound DNS name reaches nothing', async () => {
    const port = new URL(loopback.url).port;
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const sent = request(
        { host: '127.0.0.1', port, path: '/api/sessions', headers: { Host: `attacker.example:${port}` } },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      sent.on('error', reject);
      sent.end();
    });
    expect(status).toBe(421);
  });

  it('refuses a state-changing request without the CSRF header, from another origin, or with a body that is not JSON', async () => {
    const stop = new URL('api/sessions/no-such-session/stop', loopback.url);
    const json = { 'Content-Type': 'application/json' };
    const refusals = [
      await fetch(stop, { method: 'POST', headers: json, body: '{}' }),
      await fetch(stop, { method: 'POST', headers: { ...json, 'X-Arbor-Console-Csrf': 'guessed' }, body: '{}' }),
      await fetch(stop, { method: 'POST', headers: { ...json, 'X-Arbor-Console-Csrf': csrf, Origin: 'https://evil.example' }, body: '{}' }),
      await fetch(stop, { method: 'POST', headers: { 'Content-Type': 'text/plain', 'X-Arbor-Console-Csrf': csrf }, body: '{}' }),
    ];
    expect(refusals.map((response) => response.status)).toEqual([403, 403, 403, 403]);
    expect(((await refusals[2]!.json()) as { error: string }).error).toBe('Requests from https://evil.example are refused.');

    const allowed = await fetch(stop, {
      method: 'POST',
      headers: { ...json, 'X-Arbor-Console-Csrf': csrf, Origin: new URL(loopback.url).origin },
      body: '{}',
    });
    // Past the guard, the SDK answers: there is no such session.
    expect(allowed.status).not.toBe(403);
  });

  it('requires a token off loopback, generating one when none is given, and keeps it in an HttpOnly cookie', async () => {
    const open = await startConsoleServer({ client, host: '0.0.0.0', port: 0, assetsDir });
    try {
      expect(open.token).toMatch(/^[\w-]{24,}$/);
      expect(open.url).toContain(`?token=${open.token}`);
      const base = open.url.replace('0.0.0.0', '127.0.0.1').replace(/\?.*$/, '');

      expect((await fetch(base)).status).toBe(401);
      expect((await fetch(`${base}api/sessions`, { headers: { Authorization: 'Bearer wrong-token-wrong-token' } })).status).toBe(401);
      expect((await fetch(`${base}api/sessions`, { headers: { Authorization: `Bearer ${open.token}` } })).status).toBe(200);

      const login = await fetch(`${base}?token=${open.token}`, { redirect: 'manual' });
      expect(login.status).toBe(303);
      const cookie = login.headers.get('set-cookie') ?? '';
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Strict/);
      expect((await fetch(base, { headers: { Cookie: cookie.split(';')[0]! } })).status).toBe(200);
    } finally {
      await open.close();
    }
  });
});
