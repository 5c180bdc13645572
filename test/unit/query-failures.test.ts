import { QueryNotRegisteredError, ServiceError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { ArborClientError } from '../../src/client/errors.js';
import type { Client } from '@temporalio/client';
import {
  boundedQuery,
  checkQueryTimeout,
  defaultQueryTimeoutMs,
  isMissingQuery,
  isUnansweredQuery,
  UnansweredQueryError,
} from '../../src/client/access/query-failures.js';

const grpcError = (code: number) => Object.assign(new Error(`${code} grpc`), { code });

describe('isUnansweredQuery', () => {
  it('recognises a query no worker answered in time (cancelled, deadline exceeded, unavailable)', () => {
    for (const code of [1, 4, 14])
      expect(isUnansweredQuery(new ServiceError('Failed to query Workflow', { cause: grpcError(code) }))).toBe(true);
  });

  it('does not retry queries the workflow or the server refused, nor other errors', () => {
    expect(isUnansweredQuery(new ServiceError('Failed to query Workflow', { cause: grpcError(3) }))).toBe(false);
    expect(isUnansweredQuery(new ServiceError('Failed to query Workflow'))).toBe(false);
    expect(isUnansweredQuery(grpcError(1))).toBe(false);
  });
});

describe('UnansweredQueryError and the query timeout', () => {
  it('counts an UnansweredQueryError as unanswered, so waitUntilIdle asks again', () => {
    const error = new UnansweredQueryError('session-1', 30_000, {
      cause: new ServiceError('Failed to query Workflow', { cause: grpcError(4) }),
    });
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

describe('boundedQuery', () => {
  /** A client whose calls run as given, with no connection behind them. */
  const client = { connection: {}, withDeadline: (_deadline: number, call: () => Promise<unknown>) => call() } as unknown as Client;
  const failAfter = (ms: number, code: number) => () =>
    new Promise((_, reject) => setTimeout(() => reject(new ServiceError('Failed to query Workflow', { cause: grpcError(code) })), ms));

  it('counts a call the server cancelled at the deadline it was given as unanswered', async () => {
    const error = await boundedQuery(client, 'session-2', failAfter(300, 1), 250).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnansweredQueryError);
    expect((error as Error).message).toMatch(/^No answer from session-2 within 0\.3 s/);
  });

  it('passes on a cancelled call well before the deadline, and a refusal at any time, as they are', async () => {
    const early = await boundedQuery(client, 'session-3', failAfter(10, 1), 5_000).catch((caught: unknown) => caught);
    expect(early).toBeInstanceOf(ServiceError);
    expect(early).not.toBeInstanceOf(UnansweredQueryError);
    const refused = await boundedQuery(client, 'session-4', failAfter(300, 3), 250).catch((caught: unknown) => caught);
    expect(refused).not.toBeInstanceOf(UnansweredQueryError);
  });
});

describe('isMissingQuery', () => {
  const missing = 'Workflow did not register a handler for transcriptPage. Registered queries: [__stack_trace transcript]';

  it('recognises a workflow without the named query, as the dev server and the test server report it', () => {
    expect(isMissingQuery(new QueryNotRegisteredError(missing, 3), 'transcriptPage')).toBe(true);
    expect(
      isMissingQuery(
        new ServiceError('Failed to query Workflow', { cause: Object.assign(new Error(`13 INTERNAL: ${missing}`), { code: 13 }) }),
        'transcriptPage',
      ),
    ).toBe(true);
  });

  it("does not take another query's absence, a failing handler or another error for it", () => {
    expect(isMissingQuery(new QueryNotRegisteredError(missing, 3), 'transcript')).toBe(false);
    expect(isMissingQuery(new QueryNotRegisteredError('transcriptPage failed: offset out of range', 3), 'transcriptPage')).toBe(false);
    expect(isMissingQuery(new Error(missing), 'transcriptPage')).toBe(false);
  });
});
