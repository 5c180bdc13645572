import type { SessionEventBody } from '../shared/events.js';
import type { Allowance, BudgetGrant, CarriedUsage, TreeUsageReport } from '../shared/tree-usage.js';
import {
  addUsage,
  budgetSpentMessage,
  emptyTotals,
  formatUsd,
  roundCost,
  sumTotals,
  type Budget,
  type BudgetChange,
  type BudgetState,
  type ModelUsage,
  type UsageSnapshot,
  type UsageTotals,
} from '../shared/usage.js';

/** The most sessions below a root whose usage it keeps apart (a tree has at most 50 running children per session). */
const maxMembers = 5_000;

/**
 * A session's spending: its own model calls, and at a root the reports of the sessions below (each a member's own
 * cumulative totals, so a report sent twice counts once) and the allowances it handed out from the tree's budget.
 * Pure state: the signals that carry reports and grants are sent by tree-budget.ts.
 */
export class UsageLedger {
  own: UsageTotals;
  private members: Record<string, UsageTotals>;
  private granted: Record<string, Allowance>;
  budget: Budget;
  drawsFromRoot: boolean;
  private allowance: Allowance | undefined;
  private nextRequestId: number;
  private grants = new Map<number, BudgetGrant>();
  private stop: string | null;
  /** Whether a cron firing was held since the budget stopped the session (said once, see `heldByBudget`). */
  private firingsHeld: boolean;

  private readonly isRoot: boolean;

  constructor(
    /** This session and its root: a root counts its tree, and a budget message names the session to raise. */
    private readonly identity: { session_id: string; root_session_id: string },
    private readonly emit: (event: SessionEventBody) => void,
    carried?: CarriedUsage,
  ) {
    this.isRoot = identity.session_id === identity.root_session_id;
    this.own = carried?.own ?? emptyTotals();
    this.members = carried?.members ?? {};
    this.granted = carried?.granted ?? {};
    this.budget = carried?.budget ?? {};
    this.drawsFromRoot = carried?.draws_from_root === true;
    this.allowance = carried?.allowance;
    this.nextRequestId = carried?.next_request_id ?? 1;
    this.stop = carried?.budget_stop ?? null;
    this.firingsHeld = carried?.firings_held === true;
  }

  /** Why the budget refused the last model call, or null once a call was made or the budget was changed. */
  get budgetStop(): string | null {
    return this.stop;
  }

  set budgetStop(reason: string | null) {
    this.stop = reason;
    if (reason === null) this.firingsHeld = false;
  }

  /** A firing is held at the spent budget: true for the first since the budget stopped the session (to say so once). */
  holdFiring(): boolean {
    if (this.firingsHeld) return false;
    this.firingsHeld = true;
    return true;
  }

  /** One call's usage, recorded with the reply that carried it: a `usage` event, and this session's totals. */
  record(usage: ModelUsage, source: 'model' | 'webFetch'): void {
    this.own = addUsage(this.own, usage);
    this.emit({
      type: 'usage',
      source,
      model: usage.model ?? '',
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      ...(usage.cached_tokens ? { cached_tokens: usage.cached_tokens } : {}),
      ...(usage.reasoning_tokens ? { reasoning_tokens: usage.reasoning_tokens } : {}),
      cost_usd: usage.cost_usd ?? null,
    });
  }

  /** Root sessions: this session's and every reported member's totals. */
  tree(): UsageTotals {
    return sumTotals([this.own, ...Object.values(this.members)]);
  }

  /** Whether sub-agents started now draw from this tree's budget (and so are told to). */
  treeHasBudget(): boolean {
    return this.drawsFromRoot || (this.isRoot && hasLimits(this.budget));
  }

  /**
   * Root sessions: takes a member's report; when it asks for an allowance, answers with the half of what the tree's
   * budget has left (less what other members hold), or a refusal once nothing is left. Bad reports are ignored.
   */
  report(report: TreeUsageReport): BudgetGrant | undefined {
    if (!this.isRoot || !isReport(report)) return undefined;
    const id = report.session_id;
    const known = this.members[id];
    if ((known === undefined && Object.keys(this.members).length >= maxMembers) || id === '') return undefined;
    if (!known || report.usage.calls >= known.calls) this.members[id] = cleanTotals(report.usage);
    if (report.final) delete this.granted[id];
    if (typeof report.request_id !== 'number') return undefined;
    const spent = this.tree();
    const held = this.heldBy((member) => member !== id);
    const mine = this.members[id]!;
    const allowance: Allowance = {};
    if (this.budget.max_tokens !== undefined) {
      const left = this.budget.max_tokens - spent.total_tokens - held.total_tokens;
      if (left <= 0) return { request_id: report.request_id, refusal: this.refusal(spent, held) };
      allowance.total_tokens = mine.total_tokens + Math.max(1, Math.floor(left / 2));
    }
    if (this.budget.max_cost_usd !== undefined) {
      const left = roundCost(this.budget.max_cost_usd - spent.cost_usd - held.cost_usd);
      if (left <= 0) return { request_id: report.request_id, refusal: this.refusal(spent, held) };
      allowance.cost_usd = roundCost(mine.cost_usd + left / 2);
    }
    if (hasLimits(this.budget)) this.granted[id] = allowance;
    return { request_id: report.request_id, allowance };
  }

  /**
   * Why this session may not start a model call now, or null: its own limits (a root's count its whole tree, and the
   * allowances its members hold), then, for a member of a budgeted tree, the allowance its root gave it.
   */
  ownRefusal(): string | null {
    if (this.isRoot) {
      if (!hasLimits(this.budget)) return null;
      const spent = this.tree();
      const held = this.heldBy(() => true);
      const over =
        (this.budget.max_tokens !== undefined && spent.total_tokens + held.total_tokens >= this.budget.max_tokens) ||
        (this.budget.max_cost_usd !== undefined && spent.cost_usd + held.cost_usd >= this.budget.max_cost_usd);
      return over ? this.refusal(spent, held) : null;
    }
    return budgetSpentMessage(this.own, this.budget, 'this sub-agent', this.identity.session_id);
  }

  /** Members of a budgeted tree: whether the allowance last granted still has room for a call. */
  hasAllowance(): boolean {
    const allowance = this.allowance;
    if (!allowance) return false;
    if (allowance.total_tokens !== undefined && this.own.total_tokens >= allowance.total_tokens) return false;
    if (allowance.cost_usd !== undefined && this.own.cost_usd >= allowance.cost_usd) return false;
    return true;
  }

  newRequestId(): number {
    return this.nextRequestId++;
  }

  receiveGrant(grant: BudgetGrant): void {
    if (typeof grant?.request_id === 'number') this.grants.set(grant.request_id, grant);
  }

  hasGrant(requestId: number): boolean {
    return this.grants.has(requestId);
  }

  /** The root's answer to a request, once it came: taken (its allowance kept), or undefined while it has not. */
  takeGrant(requestId: number): BudgetGrant | undefined {
    const grant = this.grants.get(requestId);
    if (!grant) return undefined;
    this.grants.delete(requestId);
    if (!grant.refusal) this.allowance = isAllowance(grant.allowance) ? grant.allowance : {};
    return grant;
  }

  /** The `setBudget` update: a number sets a limit, null removes it, a key left out keeps it. Clears a budget stop. */
  setBudget(change: BudgetChange): BudgetState {
    const next: Budget = { ...this.budget };
    if (change.max_tokens === null) delete next.max_tokens;
    else if (change.max_tokens !== undefined) next.max_tokens = change.max_tokens;
    if (change.max_cost_usd === null) delete next.max_cost_usd;
    else if (change.max_cost_usd !== undefined) next.max_cost_usd = change.max_cost_usd;
    this.budget = next;
    this.budgetStop = null;
    return { budget: next, spent: this.isRoot ? this.tree() : this.own };
  }

  snapshot(): UsageSnapshot {
    return {
      session: this.own,
      ...(this.isRoot ? { tree: this.tree() } : {}),
      ...(hasLimits(this.budget) ? { budget: this.budget } : {}),
      ...(this.drawsFromRoot ? { draws_from_root: true as const } : {}),
      budget_stop: this.budgetStop,
    };
  }

  /** Nothing while the session has neither spent nor been given a budget: runs from before usage carry the same. */
  carry(): { usage?: CarriedUsage } {
    if (this.own.calls === 0 && Object.keys(this.members).length === 0 && !hasLimits(this.budget) && !this.drawsFromRoot) return {};
    return {
      usage: {
        own: this.own,
        ...(Object.keys(this.members).length > 0 ? { members: this.members } : {}),
        ...(Object.keys(this.granted).length > 0 ? { granted: this.granted } : {}),
        ...(hasLimits(this.budget) ? { budget: this.budget } : {}),
        ...(this.drawsFromRoot ? { draws_from_root: true as const } : {}),
        ...(this.allowance ? { allowance: this.allowance } : {}),
        ...(this.nextRequestId > 1 ? { next_request_id: this.nextRequestId } : {}),
        ...(this.budgetStop ? { budget_stop: this.budgetStop } : {}),
        ...(this.firingsHeld ? { firings_held: true as const } : {}),
      },
    };
  }

  /** What members hold of their allowances and have not reported spending yet. */
  private heldBy(counted: (member: string) => boolean): { total_tokens: number; cost_usd: number } {
    let tokens = 0;
    let cost = 0;
    for (const [member, allowance] of Object.entries(this.granted)) {
      if (!counted(member)) continue;
      const used = this.members[member] ?? emptyTotals();
      tokens += Math.max(0, (allowance.total_tokens ?? 0) - used.total_tokens);
      cost += Math.max(0, (allowance.cost_usd ?? 0) - used.cost_usd);
    }
    return { total_tokens: tokens, cost_usd: roundCost(cost) };
  }

  private refusal(spent: UsageTotals, held: { total_tokens: number; cost_usd: number }): string {
    const message = budgetSpentMessage(spent, this.budget, "this session's tree", this.identity.session_id);
    if (message) return message;
    const limits = [
      this.budget.max_tokens !== undefined
        ? `${spent.total_tokens.toLocaleString('en-US')} of max_tokens ${this.budget.max_tokens.toLocaleString('en-US')} used, ${held.total_tokens.toLocaleString('en-US')} held`
        : null,
      this.budget.max_cost_usd !== undefined
        ? `${formatUsd(spent.cost_usd)} of max_cost_usd ${formatUsd(this.budget.max_cost_usd)} spent, ${formatUsd(held.cost_usd)} held`
        : null,
    ].filter(Boolean);
    return (
      `The tree's budget is spent or held by sub-agents still running (${limits.join('; ')}). No model call was made. ` +
      `Raise it (session.setBudget(...) or \`arbor budget ${this.identity.session_id}\`), or wait for the sub-agents, and send a message to continue.`
    );
  }
}

export function hasLimits(budget: Budget): boolean {
  return budget.max_tokens !== undefined || budget.max_cost_usd !== undefined;
}

const totalsKeys = Object.keys(emptyTotals()) as (keyof UsageTotals)[];

function isReport(report: unknown): report is TreeUsageReport {
  if (typeof report !== 'object' || report === null) return false;
  const { session_id, usage } = report as Partial<TreeUsageReport>;
  return (
    typeof session_id === 'string' &&
    session_id.length <= 200 &&
    typeof usage === 'object' &&
    usage !== null &&
    totalsKeys.every((key) => typeof usage[key] === 'number' && Number.isFinite(usage[key]) && usage[key] >= 0)
  );
}

function cleanTotals(usage: UsageTotals): UsageTotals {
  return Object.fromEntries(totalsKeys.map((key) => [key, usage[key]])) as unknown as UsageTotals;
}

function isAllowance(allowance: unknown): allowance is Allowance {
  if (typeof allowance !== 'object' || allowance === null) return false;
  const { total_tokens, cost_usd } = allowance as Allowance;
  return (total_tokens === undefined || typeof total_tokens === 'number') && (cost_usd === undefined || typeof cost_usd === 'number');
}
