import { ServiceError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { isUnansweredQuery } from '../../src/query-failures.js';

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
