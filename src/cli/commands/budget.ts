import { Command } from 'commander';
import { checkSessionId } from '../../client/session-id.js';
import { createOutput } from '../output.js';
import { connectionSettingsFrom, positiveAmount, positiveInteger, withConnectionFlags, type ConnectionFlags } from '../options.js';
import { withClient } from '../with-client.js';
import { UsageError } from '../usage-error.js';
import { renderUsage } from '../render-usage.js';
import type { BudgetChange } from '../../shared/usage.js';

interface BudgetFlags extends ConnectionFlags {
  maxTokens?: number;
  maxCostUsd?: number;
  /** False with --no-limit-tokens, --no-limit-cost. */
  limitTokens?: boolean;
  limitCost?: boolean;
  json?: boolean;
}

export const budgetCommand = withConnectionFlags(
  new Command('budget')
    .description("set, raise or remove a session's budget (a root's is its whole tree's); the session then takes messages again")
    .argument('<session-id>', 'the session id (or a unique start of it)', checkSessionId)
    .option('--max-tokens <n>', 'tokens (prompt + completion) the tree may use', positiveInteger('--max-tokens'))
    .option('--max-cost-usd <usd>', "US dollars the tree may spend, by the worker's price table", positiveAmount('--max-cost-usd'))
    .option('--no-limit-tokens', 'remove the token limit')
    .option('--no-limit-cost', 'remove the cost limit')
    .option('--json', 'print one JSON object'),
).action(async (sessionId: string, flags: BudgetFlags) => {
  const output = createOutput(Boolean(flags.json));
  const change: BudgetChange = {
    ...(flags.maxTokens !== undefined ? { max_tokens: flags.maxTokens } : {}),
    ...(flags.maxCostUsd !== undefined ? { max_cost_usd: flags.maxCostUsd } : {}),
    ...(flags.limitTokens === false ? { max_tokens: null } : {}),
    ...(flags.limitCost === false ? { max_cost_usd: null } : {}),
  };
  if (Object.keys(change).length === 0)
    throw new UsageError('Say what to change: --max-tokens N, --max-cost-usd X, --no-limit-tokens or --no-limit-cost.');
  await withClient(connectionSettingsFrom(flags), async (client) => {
    const session = await client.findSession(sessionId);
    const state = await session.setBudget(change);
    const usage = renderUsage({ session: state.spent, budget: state.budget, tree: state.spent });
    output.result({ session_id: session.id, ...state }, [`${session.id} budget set`, ...usage].join('\n'));
  });
});
