/**
 * A workflow interceptor for tests: a sub-agent whose title holds "Unindexed" starts with its ArborRootSessionId
 * written as another value, as if the visibility store had never indexed it in its tree (the PostgreSQL tsvector
 * defect did that to real sessions). Everything else about the session, its own record of its tree included, is real.
 */
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';
import type { SearchAttributePair } from '@temporalio/common';
import { rootSessionIdKey, titleKey } from '../../src/shared/search-attributes.js';

export const interceptors: WorkflowInterceptorsFactory = () => ({
  outbound: [
    {
      async startChildWorkflowExecution(input, next) {
        const pairs = input.options.typedSearchAttributes as SearchAttributePair[] | undefined;
        const title = pairs?.find((pair) => pair.key.name === titleKey.name)?.value;
        if (!Array.isArray(pairs) || typeof title !== 'string' || !title.includes('Unindexed')) return next(input);
        const hidden = pairs.map((pair) =>
          pair.key.name === rootSessionIdKey.name
            ? ({ key: rootSessionIdKey, value: `never-indexed-${String(pair.value)}` } as SearchAttributePair)
            : pair,
        );
        return next({ ...input, options: { ...input.options, typedSearchAttributes: hidden } });
      },
    },
  ],
});
