import { z } from 'zod';
import { lazy } from './lazy.js';
import { ownerSchema } from './tools/memory.js';

/**
 * The memory store workflow's input: the owner whose memories it keeps, and what Arbor itself carries across
 * continue-as-new (checked only to be an object and a list: their shape belongs to the versions that wrote them).
 */
export const memoryStoreInputSchema = lazy(() =>
  z.strictObject({
    owner: ownerSchema(),
    carried: z.looseObject({}).optional().describe('Set by the store at continue-as-new. Never send it.'),
    recent_writes: z.array(z.unknown()).optional().describe('Set by the store at continue-as-new. Never send it.'),
  }),
);

/** What is wrong with a memory store's input, or null when nothing is. */
export function memoryStoreInputProblem(input: unknown): string | null {
  const parsed = memoryStoreInputSchema().safeParse(input);
  if (parsed.success) return null;
  return (
    `Invalid memory store input:\n${z.prettifyError(parsed.error)}\n` +
    'A memory store\'s input is {"owner": "<owner id>"}; Arbor starts it as arbor-memory-<owner> on the first save ' +
    '(see docs/protocol.md and schemas/memory-store-input.json).'
  );
}
