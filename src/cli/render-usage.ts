import { describeCost, formatUsd, type UsageSnapshot, type UsageTotals } from '../shared/usage.js';

/** The usage lines of `arbor show`: this session's, its tree's (at a root), its budget and why the budget stopped it. */
export function renderUsage(usage: UsageSnapshot | undefined): string[] {
  if (!usage) return [];
  const lines = [`usage     ${describeTotals(usage.session)}`];
  if (usage.tree && usage.tree.calls !== usage.session.calls) lines.push(`tree      ${describeTotals(usage.tree)}`);
  if (usage.budget) {
    const limits = [
      usage.budget.max_tokens !== undefined ? `max_tokens ${count(usage.budget.max_tokens)}` : null,
      usage.budget.max_cost_usd !== undefined ? `max_cost_usd ${formatUsd(usage.budget.max_cost_usd)}` : null,
    ].filter(Boolean);
    lines.push(`budget    ${limits.join(', ')}${usage.tree ? ' for the whole tree' : ' for this sub-agent'}`);
  } else if (usage.draws_from_root) lines.push("budget    draws from its root's budget");
  if (usage.budget_stop) lines.push(`stopped   ${usage.budget_stop}`);
  return lines;
}

function describeTotals(totals: UsageTotals): string {
  const cached = totals.cached_tokens > 0 ? `, ${count(totals.cached_tokens)} cached` : '';
  const reasoning = totals.reasoning_tokens > 0 ? `, ${count(totals.reasoning_tokens)} reasoning` : '';
  return (
    `${count(totals.total_tokens)} tokens in ${count(totals.calls)} model call${totals.calls === 1 ? '' : 's'} ` +
    `(${count(totals.prompt_tokens)} prompt${cached}; ${count(totals.completion_tokens)} completion${reasoning}), cost ${describeCost(totals)}`
  );
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}
