import { z } from 'zod';
import { lazy } from './lazy.js';

/**
 * What one model call used, as its provider reported it (OpenAI's `usage` object), with the model that answered and
 * what it cost by the worker's price table. `cost_usd` is null when the table has no price for the model: Arbor does
 * not guess.
 */
export interface ModelUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** Of `prompt_tokens`, those read from the provider's prompt cache (`prompt_tokens_details.cached_tokens`). */
  cached_tokens?: number;
  /** Of `completion_tokens`, those spent reasoning (`completion_tokens_details.reasoning_tokens`). */
  reasoning_tokens?: number;
  /** The model that answered (as the provider named it, else the one asked). */
  model?: string;
  /** Absent: not priced yet (the activity prices the reply after reading it). */
  cost_usd?: number | null;
}

/** Sums of many calls' usage. `cost_usd` adds the calls that have a price; `unpriced_calls` counts the others. */
export interface UsageTotals {
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  total_tokens: number;
  cost_usd: number;
  unpriced_calls: number;
}

export function emptyTotals(): UsageTotals {
  return {
    calls: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    cached_tokens: 0,
    reasoning_tokens: 0,
    total_tokens: 0,
    cost_usd: 0,
    unpriced_calls: 0,
  };
}

export function addUsage(totals: UsageTotals, usage: ModelUsage): UsageTotals {
  const cost = typeof usage.cost_usd === 'number' ? usage.cost_usd : null;
  return {
    calls: totals.calls + 1,
    prompt_tokens: totals.prompt_tokens + usage.prompt_tokens,
    completion_tokens: totals.completion_tokens + usage.completion_tokens,
    cached_tokens: totals.cached_tokens + (usage.cached_tokens ?? 0),
    reasoning_tokens: totals.reasoning_tokens + (usage.reasoning_tokens ?? 0),
    total_tokens: totals.total_tokens + usage.prompt_tokens + usage.completion_tokens,
    cost_usd: roundCost(totals.cost_usd + (cost ?? 0)),
    unpriced_calls: totals.unpriced_calls + (cost === null ? 1 : 0),
  };
}

export function sumTotals(all: readonly UsageTotals[]): UsageTotals {
  const sum = emptyTotals();
  for (const totals of all) {
    for (const key of Object.keys(sum) as (keyof UsageTotals)[]) sum[key] += totals[key];
  }
  sum.cost_usd = roundCost(sum.cost_usd);
  return sum;
}

/** Costs are kept to a billionth of a dollar, so sums added in another order read the same. */
export function roundCost(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}

/** The spending limits of a session (a root's are its whole tree's). */
export interface Budget {
  max_tokens?: number;
  max_cost_usd?: number;
}

export const maxTokensSchema = lazy(() => z.number().int().min(1).max(1e12));
export const maxCostUsdSchema = lazy(() => z.number().positive().max(1e6));

/** The `setBudget` update: a number sets a limit, null removes it, a key left out keeps it. */
export const budgetChangeSchema = lazy(() =>
  z.strictObject({
    max_tokens: maxTokensSchema().nullable().optional().describe('Tokens (prompt + completion) the tree may use; null: no limit'),
    max_cost_usd: maxCostUsdSchema().nullable().optional().describe('US dollars the tree may spend, by the price table; null: no limit'),
  }),
);
export type BudgetChange = z.infer<ReturnType<typeof budgetChangeSchema>>;

/** What `setBudget` answers: the budget now, and what it counts against. */
export interface BudgetState {
  budget: Budget;
  spent: UsageTotals;
}

/** A session's usage as its snapshot shows it. */
export interface UsageSnapshot {
  /** This session's own model calls (webFetch's extraction calls included). */
  session: UsageTotals;
  /** Root sessions: the whole tree's, this session's included, as its members reported it. */
  tree?: UsageTotals;
  /** The limits this session checks before each model call (a root's are its tree's). */
  budget?: Budget;
  /** Set by Arbor for a sub-agent whose root has a budget: it draws allowances from the root. */
  draws_from_root?: true;
  /** Why the budget stopped the last turn, goals, loops and cron jobs; cleared when the budget is raised. */
  budget_stop?: string | null;
}

/**
 * Which limit of `budget` `spent` has reached, said for people (and the model reading a sub-agent's result), or null.
 * `whose` names what is counted ("this session's tree", "this sub-agent"), and `sessionId` the session whose budget it
 * is, the one to raise.
 */
export function budgetSpentMessage(spent: UsageTotals, budget: Budget, whose: string, sessionId: string): string | null {
  if (budget.max_tokens !== undefined && spent.total_tokens >= budget.max_tokens) {
    return (
      `The token budget is spent: ${whose} has used ${spent.total_tokens.toLocaleString('en-US')} tokens of its ` +
      `max_tokens ${budget.max_tokens.toLocaleString('en-US')}. No model call was made. ${raiseHint(sessionId)}`
    );
  }
  if (budget.max_cost_usd !== undefined && spent.cost_usd >= budget.max_cost_usd) {
    return (
      `The cost budget is spent: ${whose} has spent ${formatUsd(spent.cost_usd)} of its max_cost_usd ` +
      `${formatUsd(budget.max_cost_usd)}. No model call was made. ${raiseHint(sessionId)}`
    );
  }
  return null;
}

/** How to raise the budget of session `sessionId` (a root's counts for its tree; a sub-agent's for its own calls). */
export const raiseHint = (sessionId: string) =>
  `Raise it (session.setBudget(...) or \`arbor budget ${sessionId} --max-tokens N --max-cost-usd X\`) and send a message to continue.`;

export function formatUsd(usd: number): string {
  return `$${usd < 0.01 && usd > 0 ? usd.toPrecision(3) : usd.toFixed(usd < 100 ? 4 : 2)}`;
}

/** "$0.0123", "unknown" when no call had a price, "$0.0123 + 2 calls unpriced" when some had none. */
export function describeCost(totals: UsageTotals): string {
  if (totals.calls === 0) return formatUsd(0);
  if (totals.unpriced_calls === totals.calls) return 'unknown';
  const unpriced = totals.unpriced_calls > 0 ? ` + ${totals.unpriced_calls} call${totals.unpriced_calls === 1 ? '' : 's'} unpriced` : '';
  return `${formatUsd(totals.cost_usd)}${unpriced}`;
}
