import type { Budget, UsageTotals } from './usage.js';

/** A session's report of its own usage to its root (see `treeUsageSignal`). */
export interface TreeUsageReport {
  session_id: string;
  /** The session's own totals so far, all its runs together. */
  usage: UsageTotals;
  /** Set when the session asks for an allowance: the root answers with a `BudgetGrant` of this id. */
  request_id?: number;
  /** Set in the report a session sends as it ends: it holds no allowance any more. */
  final?: true;
}

/**
 * The root's answer to an allowance request: the own totals the member may reach before it asks again (per limit of
 * the root's budget), or, when the tree's budget is spent, why not.
 */
export interface BudgetGrant {
  request_id: number;
  allowance?: { total_tokens?: number; cost_usd?: number };
  refusal?: string;
}

/** The own totals a member of a budgeted tree may reach before it asks its root again. */
export interface Allowance {
  total_tokens?: number;
  cost_usd?: number;
}

/** The ledger as carried across continue-as-new (absent from runs before usage was kept). */
export interface CarriedUsage {
  own: UsageTotals;
  members?: Record<string, UsageTotals>;
  granted?: Record<string, Allowance>;
  budget?: Budget;
  draws_from_root?: true;
  allowance?: Allowance;
  next_request_id?: number;
  budget_stop?: string;
  /** A cron firing was held at the spent budget, and said so. */
  firings_held?: true;
}
