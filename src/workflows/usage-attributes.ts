import type { SearchAttributePair } from '@temporalio/common';
import { costUsdKey, totalTokensKey } from '../shared/search-attributes.js';
import type { SessionState } from './session-state.js';

/**
 * The root's usage search attributes to write as a turn ends: its tree's tokens, and its cost when some call had a
 * price, once they changed since this run last wrote them. Nothing for a session below a root, or for a tree that
 * has recorded no usage, which every session of a worker from before usage is: their histories replay unchanged.
 */
export function usageAttributesWriter(state: SessionState): () => SearchAttributePair[] {
  let written: { tokens: number; cost: number } | undefined;
  return () => {
    if (!state.isRoot()) return [];
    const tree = state.usage.tree();
    if (tree.calls === 0 || (written?.tokens === tree.total_tokens && written.cost === tree.cost_usd)) return [];
    written = { tokens: tree.total_tokens, cost: tree.cost_usd };
    const priced = tree.unpriced_calls < tree.calls;
    return [{ key: totalTokensKey, value: tree.total_tokens }, ...(priced ? [{ key: costUsdKey, value: tree.cost_usd }] : [])];
  };
}
