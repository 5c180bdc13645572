import { ApplicationFailure } from '@temporalio/common';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { describe, expect, it } from 'vitest';
import { retryAfter, toModelFailure } from '../../src/activities/model-errors.js';
import { modelRequestRejected, modelTemporarilyUnavailable } from '../../src/shared/model.js';

/** An error as the openai client raises it for an HTTP response. */
function httpError(status: number, headers: Record<string, string> = {}, message = 'Something went wrong'): APIError {
  return APIError.generate(status, { error: { message, type: 'some_error' } }, undefined, new Headers(headers));
}

function asFailure(value: unknown): ApplicationFailure {
  expect(value).toBeInstanceOf(ApplicationFailure);
  return value as ApplicationFailure;
}

describe('toModelFailure', () => {
  it.each([400, 401, 403, 404, 422])('makes %i a non-retryable ModelRequestRejected failure', (status) => {
    const failure = asFailure(toModelFailure(httpError(status, {}, 'Invalid model')));
    expect(failure.type).toBe(modelRequestRejected);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.details).toEqual([{ status }]);
    expect(failure.message).toBe(`the model endpoint refused the request (${status} Invalid model)`);
  });

  it('does not honour Retry-After on a refused request', () => {
    const failure = asFailure(toModelFailure(httpError(400, { 'retry-after': '5' })));
    expect(failure.nextRetryDelay).toBeUndefined();
  });

  it.each([429, 500, 502, 503, 409])('makes %i a retryable ModelTemporarilyUnavailable failure', (status) => {
    const failure = asFailure(toModelFailure(httpError(status, {}, 'Slow down')));
    expect(failure.type).toBe(modelTemporarilyUnavailable);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.details).toEqual([{ status }]);
    expect(failure.message).toBe(`the model endpoint is unavailable (${status} Slow down)`);
    expect(failure.nextRetryDelay).toBeUndefined();
  });

  it('sets nextRetryDelay from a Retry-After header in seconds', () => {
    const failure = asFailure(toModelFailure(httpError(429, { 'retry-after': '7' })));
    expect(failure.nextRetryDelay).toBe(7000);
  });

  it('leaves a Retry-After of zero (or a date already past) to the retry policy', () => {
    expect(asFailure(toModelFailure(httpError(503, { 'retry-after': '0' }))).nextRetryDelay).toBeUndefined();
    expect(asFailure(toModelFailure(httpError(429, { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }))).nextRetryDelay).toBeUndefined();
  });

  it('sets nextRetryDelay from retry-after-ms in preference to Retry-After', () => {
    const failure = asFailure(toModelFailure(httpError(503, { 'retry-after-ms': '1500', 'retry-after': '30' })));
    expect(failure.nextRetryDelay).toBe(1500);
  });

  it('falls back to the error message, without its status prefix, when the body has no message', () => {
    const error = APIError.generate(500, undefined, undefined, new Headers());
    const failure = asFailure(toModelFailure(error));
    expect(failure.message).toBe('the model endpoint is unavailable (500 status code (no body))');
  });

  it('makes a connection error retryable', () => {
    const failure = asFailure(toModelFailure(new APIConnectionError({ message: 'ECONNREFUSED' })));
    expect(failure.type).toBe(modelTemporarilyUnavailable);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toBe('cannot reach the model endpoint: ECONNREFUSED');
  });

  it('makes a connection error produced by APIError.generate without a status retryable', () => {
    const failure = asFailure(toModelFailure(APIError.generate(undefined, new Error('socket hang up'), 'Connection error.', undefined)));
    expect(failure.type).toBe(modelTemporarilyUnavailable);
    expect(failure.nonRetryable).toBe(false);
  });

  it('makes a request timeout retryable', () => {
    const failure = asFailure(toModelFailure(new APIConnectionTimeoutError()));
    expect(failure.type).toBe(modelTemporarilyUnavailable);
    expect(failure.nonRetryable).toBe(false);
  });

  it('makes a malformed JSON body a retryable failure that says so', () => {
    let parseError: unknown;
    try {
      JSON.parse('{"choices": [');
    } catch (error) {
      parseError = error;
    }
    const failure = asFailure(toModelFailure(parseError));
    expect(failure.type).toBe(modelTemporarilyUnavailable);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toMatch(/^the model endpoint answered with malformed JSON \(.+\)$/);
  });

  it('returns errors that are not HTTP errors from the provider unchanged', () => {
    const plain = new Error('bug');
    expect(toModelFailure(plain)).toBe(plain);
    const abort = new APIUserAbortError();
    expect(toModelFailure(abort)).toBe(abort);
    expect(toModelFailure('text')).toBe('text');
  });
});

describe('retryAfter', () => {
  const now = Date.parse('2024-05-01T10:00:00.000Z');
  const headers = (values: Record<string, string>) => new Headers(values);

  it('is undefined without headers or without either header', () => {
    expect(retryAfter(undefined, now)).toBeUndefined();
    expect(retryAfter(headers({}), now)).toBeUndefined();
    expect(retryAfter(headers({ 'x-other': '5' }), now)).toBeUndefined();
  });

  it('reads Retry-After as seconds, including fractions and zero', () => {
    expect(retryAfter(headers({ 'retry-after': '12' }), now)).toBe(12_000);
    expect(retryAfter(headers({ 'retry-after': '1.5' }), now)).toBe(1_500);
    expect(retryAfter(headers({ 'retry-after': '0' }), now)).toBe(0);
  });

  it('reads retry-after-ms as milliseconds', () => {
    expect(retryAfter(headers({ 'retry-after-ms': '250' }), now)).toBe(250);
    expect(retryAfter(headers({ 'retry-after-ms': '0', 'retry-after': '9' }), now)).toBe(0);
  });

  it('reads Retry-After as an HTTP date relative to now', () => {
    expect(retryAfter(headers({ 'retry-after': 'Wed, 01 May 2024 10:00:30 GMT' }), now)).toBe(30_000);
  });

  it('treats an HTTP date in the past as no wait', () => {
    expect(retryAfter(headers({ 'retry-after': 'Wed, 01 May 2024 09:00:00 GMT' }), now)).toBe(0);
  });

  it('caps every form at ten minutes', () => {
    expect(retryAfter(headers({ 'retry-after': '3600' }), now)).toBe(600_000);
    expect(retryAfter(headers({ 'retry-after-ms': '99999999' }), now)).toBe(600_000);
    expect(retryAfter(headers({ 'retry-after': 'Thu, 02 May 2024 10:00:00 GMT' }), now)).toBe(600_000);
  });

  it('ignores garbage, blank and negative Retry-After values', () => {
    expect(retryAfter(headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfter(headers({ 'retry-after': '   ' }), now)).toBeUndefined();
    expect(retryAfter(headers({ 'retry-after': '-5' }), now)).toBeUndefined();
  });

  it('falls back to Retry-After when retry-after-ms is garbage or negative', () => {
    expect(retryAfter(headers({ 'retry-after-ms': 'abc', 'retry-after': '2' }), now)).toBe(2_000);
    expect(retryAfter(headers({ 'retry-after-ms': '-1', 'retry-after': '3' }), now)).toBe(3_000);
    expect(retryAfter(headers({ 'retry-after-ms': 'abc' }), now)).toBeUndefined();
  });
});
