import { SearchEngineError } from './errors.js';
import type { HttpAnswer, HttpRequest, SearchEngineName } from './types.js';

/** Search answers are small (a DuckDuckGo page is ~100 KB); anything past this is not a search answer. */
export const maxAnswerBytes = 5 * 1024 * 1024;

export interface SendOptions {
  fetch: typeof fetch;
  timeoutMs: number;
  /** The caller's cancellation (e.g. the activity's). Aborting it stops the search instead of failing over. */
  signal?: AbortSignal;
}

/**
 * Sends one engine request under its own timeout, which covers the whole exchange including the body.
 * Throws SearchEngineError (timeout, network, too_large); a cancelled caller gets its own abort reason back.
 */
export async function sendRequest(engine: SearchEngineName, request: HttpRequest, options: SendOptions): Promise<HttpAnswer> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    const response = await options.fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      signal,
      redirect: 'follow',
    });
    const body = await readCapped(engine, response);
    return { status: response.status, headers: response.headers, body };
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (error instanceof SearchEngineError) throw error;
    if (timeout.aborted) {
      throw new SearchEngineError(engine, 'timeout', `timed out after ${options.timeoutMs} ms`, { cause: error });
    }
    throw new SearchEngineError(engine, 'network', `network error (${describeNetworkError(error)})`, { cause: error });
  }
}

async function readCapped(engine: SearchEngineName, response: Response): Promise<string> {
  if (!response.body) return '';
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxAnswerBytes) {
    await response.body.cancel().catch(() => undefined);
    throw new SearchEngineError(engine, 'too_large', `answer too large (${declared} bytes)`, { status: response.status });
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder('utf-8');
  let text = '';
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxAnswerBytes) {
      await reader.cancel().catch(() => undefined);
      throw new SearchEngineError(engine, 'too_large', `answer too large (over ${maxAnswerBytes} bytes)`, { status: response.status });
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

function describeNetworkError(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (cause && typeof cause === 'object') {
    const code = typeof cause.code === 'string' ? cause.code : undefined;
    const message = typeof cause.message === 'string' ? cause.message : undefined;
    if (code && message && !message.includes(code)) return `${code}: ${message}`;
    if (message) return message;
    if (code) return code;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * Throws the SearchEngineError that a non-2xx status means: 429 is a rate limit, 401/403 a rejected key,
 * anything else an HTTP failure. `detail` is the engine's own explanation, if its error body has one.
 */
export function checkStatus(engine: SearchEngineName, answer: HttpAnswer, detail?: string): void {
  const { status } = answer;
  if (status >= 200 && status < 300) return;
  const suffix = detail ? `: ${shorten(detail)}` : '';
  if (status === 429) throw new SearchEngineError(engine, 'rate_limited', `rate limited (HTTP 429${suffix})`, { status });
  if (status === 401 || status === 403) {
    throw new SearchEngineError(engine, 'auth', `refused the request (HTTP ${status}${suffix})`, { status });
  }
  throw new SearchEngineError(engine, 'http_status', `HTTP ${status}${suffix}`, { status });
}

/** Parses a JSON answer or throws an `unparseable` SearchEngineError that says what came instead. */
export function parseJson(engine: SearchEngineName, answer: HttpAnswer): unknown {
  try {
    return JSON.parse(answer.body) as unknown;
  } catch {
    const type = answer.headers.get('content-type') ?? 'no content-type';
    throw new SearchEngineError(engine, 'unparseable', `answer is not JSON (${type.split(';')[0]}, ${answer.body.length} characters)`, {
      status: answer.status,
    });
  }
}

/** Best-effort JSON parse for error bodies: undefined instead of throwing. */
export function tryParseJson(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

export function unparseable(engine: SearchEngineName, answer: HttpAnswer, what: string): SearchEngineError {
  return new SearchEngineError(engine, 'unparseable', `unparseable answer: ${what}`, { status: answer.status });
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Collapses whitespace and cuts long text to `max` characters with an ellipsis. */
export function shorten(text: string, max = 200): string {
  const collapsed = text.replace(/\s+/g, ' ').trim();
  return collapsed.length > max ? `${collapsed.slice(0, max - 1)}…` : collapsed;
}

/** A string field of a JSON object, trimmed; '' when absent or not a string. */
export function stringField(record: Record<string, unknown>, key: string): string {
  const value = record[key];
  return typeof value === 'string' ? value.trim() : '';
}
