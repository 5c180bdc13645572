import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type { SessionSnapshot } from '../../src/shared/session.js';
import type { Budget, BudgetState, UsageTotals } from '../../src/shared/usage.js';
import { postJson, sessionPath } from './api.js';

/** "12,345 tokens · $0.0123" (the cost "unknown" when no call had a price). */
export function usageText(usage: Pick<UsageTotals, 'total_tokens' | 'cost_usd' | 'calls' | 'unpriced_calls'> | null | undefined): string {
  if (!usage || usage.calls === 0) return 'no model calls yet';
  return `${usage.total_tokens.toLocaleString('en-US')} tokens · ${costText(usage)}`;
}

export function costText(usage: Pick<UsageTotals, 'cost_usd' | 'calls' | 'unpriced_calls'>): string {
  if (usage.calls > 0 && usage.unpriced_calls === usage.calls) return 'cost unknown';
  const unpriced = usage.unpriced_calls > 0 ? ` + ${usage.unpriced_calls} unpriced` : '';
  return `${usd(usage.cost_usd)}${unpriced}`;
}

export function usd(value: number): string {
  return `$${value < 0.01 && value > 0 ? value.toPrecision(3) : value.toFixed(value < 100 ? 4 : 2)}`;
}

function budgetText(budget: Budget | undefined): string {
  const parts = [
    budget?.max_tokens !== undefined ? `${budget.max_tokens.toLocaleString('en-US')} tokens` : null,
    budget?.max_cost_usd !== undefined ? usd(budget.max_cost_usd) : null,
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(' and ') : 'no limit';
}

/** The tree's spending, its budget, and a form that raises it (the root's `setBudget`, checked by the SDK). */
export function UsagePanel(props: { root: SessionSnapshot; onChanged: () => void }) {
  const usage = props.root.usage;
  const [tokens, setTokens] = useState('');
  const [cost, setCost] = useState('');
  const [note, setNote] = useState<{ error: boolean; text: string } | null>(null);
  const raise = async (event: Event) => {
    event.preventDefault();
    const change: Record<string, number> = {};
    if (tokens.trim() !== '') change.max_tokens = Number(tokens);
    if (cost.trim() !== '') change.max_cost_usd = Number(cost);
    if (Object.keys(change).length === 0) return setNote({ error: true, text: 'Give a token or a cost limit first.' });
    try {
      const state = await postJson<BudgetState>(sessionPath(props.root.session_id, 'budget'), change);
      setNote({ error: false, text: `The budget is now ${budgetText(state.budget)}.` });
      setTokens('');
      setCost('');
      props.onChanged();
    } catch (refusal) {
      setNote({ error: true, text: (refusal as Error).message });
    }
  };
  return html`<section class="usage" aria-label="Usage and budget">
    <h2>Usage and budget</h2>
    <p class="usage-line">
      <span>Tree: <strong class="tree-usage">${usageText(usage?.tree ?? usage?.session)}</strong></span>
      <span>Budget: <strong class="budget">${budgetText(usage?.budget)}</strong></span>
    </p>
    ${usage?.budget_stop ? html`<p class="error" role="alert">${usage.budget_stop}</p>` : null}
    <form class="budget-form" novalidate onSubmit=${raise}>
      <label
        >Max tokens
        <input type="number" min="1" step="1" value=${tokens} onInput=${(e: Event) => setTokens((e.target as HTMLInputElement).value)}
      /></label>
      <label
        >Max cost (USD)
        <input type="number" min="0" step="any" value=${cost} onInput=${(e: Event) => setCost((e.target as HTMLInputElement).value)}
      /></label>
      <button type="submit">Set budget</button>
    </form>
    ${note ? html`<p class=${note.error ? 'error' : 'note'} role="status">${note.text}</p>` : null}
  </section>`;
}
