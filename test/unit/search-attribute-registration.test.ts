import type { Connection } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import {
  ensureSearchAttributes,
  SearchAttributesMissingError,
  supportsSearchAttributes,
} from '../../src/temporal/search-attribute-registration.js';

function fakeConnection(existing: Record<string, number>, add: () => Promise<unknown>, list?: () => Promise<unknown>): Connection {
  const added: unknown[] = [];
  return {
    operatorService: {
      listSearchAttributes: list ?? (async () => ({ customAttributes: existing })),
      addSearchAttributes: async (request: unknown) => {
        added.push(request);
        return add();
      },
    },
    added,
  } as unknown as Connection;
}

describe('search attribute registration', () => {
  it('adds only the missing attributes', async () => {
    const connection = fakeConnection({ ArborStatus: 2, ArborTitle: 1 }, async () => ({}));
    expect(await ensureSearchAttributes(connection, 'ns')).toEqual([
      'ArborRootSessionId',
      'ArborParentSessionId',
      'ArborTotalTokens',
      'ArborCostUsd',
      'ArborForkedFrom',
    ]);
    const request = (connection as unknown as { added: { searchAttributes: Record<string, number> }[] }).added[0]!;
    // Keyword 2, Int 3, Double 4 (IndexedValueType).
    expect(request.searchAttributes).toEqual({
      ArborRootSessionId: 2,
      ArborParentSessionId: 2,
      ArborTotalTokens: 3,
      ArborCostUsd: 4,
      ArborForkedFrom: 2,
    });
  });

  it('does nothing when all are present', async () => {
    const connection = fakeConnection(
      {
        ArborStatus: 2,
        ArborTitle: 1,
        ArborRootSessionId: 2,
        ArborParentSessionId: 2,
        ArborTotalTokens: 3,
        ArborCostUsd: 4,
        ArborForkedFrom: 2,
      },
      async () => {
        throw new Error('must not be called');
      },
    );
    expect(await ensureSearchAttributes(connection, 'ns')).toEqual([]);
  });

  it('names the commands an administrator must run when the server refuses', async () => {
    const connection = fakeConnection({}, async () => {
      throw Object.assign(new Error('7 PERMISSION_DENIED: not allowed'), { code: 7 });
    });
    const error = await ensureSearchAttributes(connection, 'prod').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SearchAttributesMissingError);
    const message = (error as Error).message;
    expect(message).toContain('temporal operator search-attribute create --namespace prod --name ArborStatus --type Keyword');
    expect(message).toContain('--name ArborTitle --type Text');
    expect(message).toContain('tcld namespace search-attributes add');
    expect(message).toContain('PERMISSION_DENIED');
  });

  it('treats a server without the operator service as one without search attributes', async () => {
    const unimplemented = fakeConnection(
      {},
      async () => ({}),
      async () => {
        throw Object.assign(new Error('12 UNIMPLEMENTED'), { code: 12 });
      },
    );
    expect(await supportsSearchAttributes(unimplemented, 'default')).toBe(false);
    expect(
      await supportsSearchAttributes(
        fakeConnection({}, async () => ({})),
        'default',
      ),
    ).toBe(true);
  });
});
