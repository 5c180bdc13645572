import { QueryNotRegisteredError, ServiceError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { ArborClientError } from '../../src/client-errors.js';
import { checkQueryTimeout, defaultQueryTimeoutMs, isMissingQuery, isUnansweredQuery, UnansweredQueryError } from '../../src/query-failures.js';

const grpcError = (code: number) => Object.assign(new Error(`${code} grpc`), { code });

describe('isUnansweredQuery', () => {
  it('recognises a query no worker answered in time (cancelled, deadline exceeded, unavailable)', () => {
    for (const code of [1, 4, 14]) expect(isUnansweredQuery(new ServiceError('Failed to query Workflow', { cause: grpcError(code) }))).toBe(true);
  });

  it('does not retry queries the workflow or the server refused, nor other errors', () => {
    expect(isUnansweredQuery(new ServiceError('Failed to query Workflow', { cause: grpcError(3) }))).toBe(false);
    expect(isUnansweredQuery(new ServiceError('Failed to query Workflow'))).toBe(false);
    expect(isUnansweredQuery(grpcError(1))).toBe(false);
  });
});

describe('UnansweredQueryError and the query timeout', () => {
  it('counts an UnansweredQueryError as unanswered, so waitUntilIdle asks again', () => {
    const error = new UnansweredQueryError('session-1', 30_000, { cause: new ServiceError('Failed to query Workflow', { cause: grpcError(4) }) });
    expect(isUnansweredQuery(error)).toBe(true);
    expect(error).toBeInstanceOf(ArborClientError);
    expect(error.message).toMatch(/^No answer from session-1 within 30 s: no worker answered the query/);
  });

  it('takes the default when none is given and refuses one that is not a positive number', () => {
    expect(checkQueryTimeout(undefined)).toBe(defaultQueryTimeoutMs);
    expect(checkQueryTimeout(250)).toBe(250);
    for (const bad of [0, -1, Number.POSITIVE_INFINITY, '5000' as unknown as number]) {
      expect(() => checkQueryTimeout(bad)).toThrow(ArborClientError);
    }
    expect(() => checkQueryTimeout('5000' as unknown as number)).toThrow('not "5000"');
  });
});

describe('isMissingQuery', () => {
  const missing = 'Workflow did not register a handler for transcriptPage. Registered queries: [__stack_trace transcript]';

  it('recognises a workflow without the named query, as the dev server and the test server report it', () => {
    expect(isMissingQuery(new QueryNotRegisteredError(missing, 3), 'transcriptPage')).toBe(true);
    expect(isMissingQuery(new ServiceError('Failed to query Workflow', { cause: Object.assign(new Error(`13 INTERNAL: ${missing}`), { code: 13 }) }), 'transcriptPage')).toBe(true);
  });

  it('does not take another query\'s absence, a failing handler or another error for it', () => {
    expect(isMissingQuery(new QueryNotRegisteredError(missing, 3), 'transcript')).toBe(false);
    expect(isMissingQuery(new QueryNotRegisteredError('transcriptPage failed: offset out of range', 3), 'transcriptPage')).toBe(false);
    expect(isMissingQuery(new Error(missing), 'transcriptPage')).toBe(false);
  });
});
