import { z } from 'zod';
import { defineTool } from './define-tool.js';

/** subagent_observe's default `timeout_ms` (TOOLS.MCP.SUBAGENT.OBSERVE_TIMEOUT_MS out of the box): no wait. */
export const defaultObserveTimeoutMs = 0;
/** The longest bounded wait Arbor takes (`null` waits without limit). */
export const maxObserveTimeoutMs = 7 * 24 * 3600 * 1000;

export const subagentObserve = defineTool({
  name: 'subagent_observe',
  waits: true,
  description:
    'Check on one subagent. mode "current" returns a snapshot at once; mode "terminal" blocks until it finishes, is ' +
    `cancelled, fails or is abandoned, for at most timeout_ms (default ${defaultObserveTimeoutMs}: no wait; null: no limit).`,
  input: () =>
    z.object({
      subagent_id: z.string().trim().min(1).describe('The ID subagent_spawn returned'),
      mode: z
        .enum(['current', 'terminal'])
        .default('current')
        .describe('"current" (default): a snapshot now; "terminal": wait for its end'),
      timeout_ms: z
        .number()
        .int()
        .min(0)
        .max(maxObserveTimeoutMs)
        .nullable()
        .default(defaultObserveTimeoutMs)
        .describe(`How long mode "terminal" waits, in milliseconds (default ${defaultObserveTimeoutMs}; null waits without limit)`),
    }),
});
