import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';

export interface CodecServerOptions {
  codec: PayloadCodec;
  /** Default 127.0.0.1: only this machine reaches it. */
  host?: string;
  /** Default 8888; 0 picks a free port. */
  port?: number;
  /** Web UI origins allowed to call it from a browser (CORS), e.g. `http://localhost:8233`. Default: none. */
  allowedOrigins?: readonly string[];
  /** A request must carry `Authorization: Bearer <token>` (or exactly `<token>`). Default: no check. */
  token?: string;
}

export interface CodecServer {
  /** `http://host:port`: the `--codec-endpoint` of the Temporal CLI and the Web UI's codec endpoint. */
  url: string;
  close(): Promise<void>;
}

/** The largest request body read: a page of history's payloads. */
const maxBodyBytes = 64 * 1024 * 1024;

/**
 * Temporal's remote codec protocol: `POST /encode` and `POST /decode` (also under a namespace segment,
 * `/<namespace>/decode`, for the CLI's `{namespace}` endpoint template) take and return `{"payloads": [...]}` in
 * proto3 JSON (each metadata value and the data are base64). Browser preflights (OPTIONS) are answered for the
 * allowed origins and need no token.
 */
export async function startCodecServer(options: CodecServerOptions): Promise<CodecServer> {
  const host = options.host ?? '127.0.0.1';
  const allowed = new Set(options.allowedOrigins ?? []);
  const server = createServer((request, response) => {
    handle(request, response, options, allowed).catch((error: unknown) => {
      if (!response.headersSent) reply(response, 500, { message: error instanceof Error ? error.message : String(error) });
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8888, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(request: IncomingMessage, response: ServerResponse, options: CodecServerOptions, allowed: Set<string>) {
  const origin = request.headers.origin;
  if (origin !== undefined && allowed.has(origin)) {
    response.setHeader('Access-Control-Allow-Origin', origin);
    response.setHeader('Access-Control-Allow-Credentials', 'true');
    response.setHeader('Vary', 'Origin');
  }
  const action = /^(?:\/[^/]+)?\/(encode|decode)\/?$/.exec(new URL(request.url ?? '/', 'http://codec').pathname)?.[1];
  if (request.method === 'OPTIONS') {
    if (origin === undefined || !allowed.has(origin))
      return reply(response, 403, { message: 'This origin may not call the codec server.' });
    response.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
    response.setHeader('Access-Control-Allow-Headers', 'Content-Type, X-Namespace, Authorization');
    response.setHeader('Access-Control-Max-Age', '600');
    response.writeHead(204).end();
    return;
  }
  if (!action) return reply(response, 404, { message: 'The codec server serves POST /encode and POST /decode.' });
  if (request.method !== 'POST') return reply(response, 405, { message: `Use POST for /${action}.` });
  if (options.token !== undefined && !authorised(request.headers.authorization, options.token)) {
    return reply(response, 401, { message: 'Missing or wrong Authorization token.' });
  }
  const body = await readBody(request);
  if (body === undefined) return reply(response, 413, { message: 'The request body is too large.' });
  let payloads: Payload[];
  try {
    payloads = payloadsFromJson(JSON.parse(body));
  } catch (error) {
    return reply(response, 400, { message: `The body is not {"payloads": [...]} in proto3 JSON: ${(error as Error).message}` });
  }
  let converted: Payload[];
  try {
    converted = action === 'encode' ? await options.codec.encode(payloads) : await decodeEach(options.codec, payloads);
  } catch (error) {
    return reply(response, 400, { message: (error as Error).message });
  }
  reply(response, 200, { payloads: converted.map(payloadToJson) });
}

/**
 * Each payload decoded on its own, and one the codec cannot decode (a key this server lacks, damaged data) returned
 * as it came, as Temporal's own codec servers do: one such payload must not hide the rest of a history page.
 */
async function decodeEach(codec: PayloadCodec, payloads: Payload[]): Promise<Payload[]> {
  return Promise.all(
    payloads.map(async (payload) => {
      try {
        const [decoded] = await codec.decode([payload]);
        return decoded ?? payload;
      } catch {
        return payload;
      }
    }),
  );
}

function authorised(header: string | undefined, token: string): boolean {
  if (header === undefined) return false;
  const given = Buffer.from(header.replace(/^Bearer\s+/i, ''));
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) {
        request.removeAllListeners('data');
        request.resume();
        resolve(undefined);
      } else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function reply(response: ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

function payloadsFromJson(body: unknown): Payload[] {
  const list = (body as { payloads?: unknown } | null)?.payloads;
  if (!Array.isArray(list)) throw new Error('no "payloads" list');
  return list.map((entry: JsonPayload) => {
    if (typeof entry !== 'object' || entry === null) throw new Error('a payload is not an object');
    const metadata: Record<string, Uint8Array> = {};
    for (const [key, value] of Object.entries(entry.metadata ?? {})) {
      if (typeof value !== 'string') throw new Error(`metadata "${key}" is not a base64 string`);
      metadata[key] = Buffer.from(value, 'base64');
    }
    if (entry.data !== undefined && typeof entry.data !== 'string') throw new Error('data is not a base64 string');
    return { metadata, data: Buffer.from(entry.data ?? '', 'base64') };
  });
}

function payloadToJson(payload: Payload): JsonPayload {
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(payload.metadata ?? {}))
    metadata[key] = Buffer.from(value ?? new Uint8Array()).toString('base64');
  return { metadata, data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64') };
}
