import { ApplicationFailure } from '@temporalio/common';
import { APIConnectionError, APIError } from 'openai';
import { modelRequestRejected, modelTemporarilyUnavailable } from '../shared/model.js';

const rejectedStatuses = new Set([400, 401, 403, 404, 422]);

/**
 * Turns a provider error into the failure Temporal's retry policy acts on: requests the provider refused (a 404 for
 * `model` is named as a model it does not serve) are not retried, overload, server errors, malformed bodies, timeouts and connection errors are, after Retry-After when
 * given.
 */
export function toModelFailure(error: unknown, model?: string): unknown {
  if (error instanceof APIConnectionError) {
    return ApplicationFailure.retryable(`cannot reach the model endpoint: ${error.message}`, modelTemporarilyUnavailable);
  }
  // A body cut short or garbled on the way (a proxy, an overloaded server): like a server error, worth another try.
  if (error instanceof SyntaxError) {
    return ApplicationFailure.retryable(`the model endpoint answered with malformed JSON (${error.message})`, modelTemporarilyUnavailable);
  }
  if (!(error instanceof APIError) || error.status === undefined) return error;
  const status = error.status;
  const detail = `${status} ${providerMessage(error)}`;
  if (rejectedStatuses.has(status)) {
    // A 404 is most often a model the endpoint does not serve (or a base URL that is not its API root).
    const notFound =
      status === 404 && model !== undefined
        ? `the model endpoint answered 404 for model "${model}": it does not serve that model, or OPENAI_BASE_URL is not its API root (${detail})`
        : undefined;
    return ApplicationFailure.create({
      message: notFound ?? `the model endpoint refused the request (${detail})`,
      type: modelRequestRejected,
      nonRetryable: true,
      details: [{ status }],
    });
  }
  const retryAfterMs = retryAfter(error.headers);
  return ApplicationFailure.create({
    message: `the model endpoint is unavailable (${detail})`,
    type: modelTemporarilyUnavailable,
    nonRetryable: false,
    details: [{ status }],
    // A zero delay is left to the retry policy: Temporal ends the retries of a failure whose next delay is zero.
    ...(retryAfterMs !== undefined && retryAfterMs > 0 ? { nextRetryDelay: retryAfterMs } : {}),
  });
}

/** The provider's own words for an error: its body's message, else the client's message without the status. */
export function providerMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  if (body && typeof body.message === 'string') return body.message;
  return error.message.replace(/^\d{3}\s*/, '');
}

const maxRetryAfterMs = 10 * 60_000;

/** Milliseconds to wait from `retry-after-ms` or `retry-after` (seconds or an HTTP date), capped at ten minutes. */
export function retryAfter(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const msText = headers.get('retry-after-ms')?.trim();
  const ms = Number(msText);
  if (msText && Number.isFinite(ms) && ms >= 0) return Math.min(ms, maxRetryAfterMs);
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.min(seconds * 1000, maxRetryAfterMs) : undefined;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(0, date - now), maxRetryAfterMs);
}
