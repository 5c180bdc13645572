import { z } from 'zod';
import { defineTool } from './define-tool.js';

/**
 * When a session's host tools are deferred: when there are more than `max_host_tools` of them, or their specs come to
 * more than `max_schema_tokens` (estimated as characters / 4). Recorded in the session's environment.
 */
export interface ToolSearchLimits {
  max_host_tools: number;
  max_schema_tokens: number;
}

export const defaultToolSearchLimits: ToolSearchLimits = { max_host_tools: 40, max_schema_tokens: 20_000 };

export const defaultToolSearchResults = 5;
export const maxToolSearchResults = 50;

/** Offered only while a session's host tools are deferred (see README "ToolSearch"). */
export const toolSearch = defineTool({
  name: 'ToolSearch',
  description:
    'Find and load deferred tools: their names are not in your tool list until found. Query with plain keywords ' +
    '(e.g. "create issue") or "select:NAME" for an exact lookup (several names comma-separated). The matching tools ' +
    'are loaded, so you can call them from your next step.',
  input: () =>
    z.object({
      query: z.string().trim().min(1).max(500).describe('Keywords, or "select:NAME[,NAME...]" for exact names'),
      max_results: z
        .number()
        .int()
        .min(1)
        .max(maxToolSearchResults)
        .optional()
        .describe(`Most tool names returned (default ${defaultToolSearchResults})`),
    }),
});
