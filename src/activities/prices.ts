import { z } from 'zod';
import { roundCost, type ModelUsage } from '../shared/usage.js';

/** A model's price in US dollars per million tokens. Cached input defaults to the input price when not given. */
export interface ModelPrice {
  input: number;
  cached_input?: number;
  output: number;
}

/** Model name -> price. A name matches itself and its dated snapshots (`gpt-4o` prices `gpt-4o-2024-08-06`). */
export type PriceTable = Record<string, ModelPrice>;

/** When `defaultPrices` were first written down from OpenAI's published prices (standard tier, per million tokens). */
export const defaultPricesTakenOn = '2025-08-15';
/**
 * When each price of `defaultPrices` was last checked against OpenAI's model pages and published price lists (all
 * matched). Newer models are not in the table: users set `ARBOR_PRICES` for what they run.
 */
export const defaultPricesCheckedOn = '2026-12-02';

/** OpenAI's published standard-tier prices (see `defaultPricesCheckedOn`); any other model is priced "unknown". */
export const defaultPrices: PriceTable = {
  'gpt-4o': { input: 2.5, cached_input: 1.25, output: 10 },
  'gpt-4o-mini': { input: 0.15, cached_input: 0.075, output: 0.6 },
  'gpt-4.1': { input: 2, cached_input: 0.5, output: 8 },
  'gpt-4.1-mini': { input: 0.4, cached_input: 0.1, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, cached_input: 0.025, output: 0.4 },
  'gpt-5': { input: 1.25, cached_input: 0.125, output: 10 },
  'gpt-5-mini': { input: 0.25, cached_input: 0.025, output: 2 },
  'gpt-5-nano': { input: 0.05, cached_input: 0.005, output: 0.4 },
  o1: { input: 15, cached_input: 7.5, output: 60 },
  o3: { input: 2, cached_input: 0.5, output: 8 },
  'o3-mini': { input: 1.1, cached_input: 0.55, output: 4.4 },
  'o4-mini': { input: 1.1, cached_input: 0.275, output: 4.4 },
};

const priceSchema = z.strictObject({
  input: z.number().min(0).max(100_000),
  cached_input: z.number().min(0).max(100_000).optional(),
  output: z.number().min(0).max(100_000),
});
const priceTableSchema = z.record(z.string().min(1).max(200), priceSchema);

/**
 * The worker's price table: the defaults, with `ARBOR_PRICES` (a JSON object of the same shape) laid over them; a
 * model given `null` there loses its default price. A malformed value is a mistake the worker refuses at start.
 */
export function pricesFrom(value: string | undefined): PriceTable {
  if (value === undefined || value.trim() === '') return { ...defaultPrices };
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new Error(
      `ARBOR_PRICES is not JSON (${(error as Error).message}); give {"model": {"input": 2.5, "cached_input": 1.25, "output": 10}}`,
      {
        cause: error,
      },
    );
  }
  const removed = Object.entries(typeof parsed === 'object' && parsed !== null ? parsed : {}).filter(([, price]) => price === null);
  const given = Object.fromEntries(Object.entries(parsed as object).filter(([, price]) => price !== null));
  const checked = priceTableSchema.safeParse(given);
  if (!checked.success) throw new Error(`ARBOR_PRICES is not a price table: ${z.prettifyError(checked.error)}`);
  const table: PriceTable = { ...defaultPrices, ...(checked.data as PriceTable) };
  for (const [model] of removed) delete table[model];
  return table;
}

/** The price of a model by the table: its own entry, or that of the model a dated snapshot name belongs to. */
export function priceOf(table: PriceTable, model: string): ModelPrice | undefined {
  if (Object.hasOwn(table, model)) return table[model];
  const undated = /^(.+)-\d{4}-\d{2}-\d{2}$/.exec(model)?.[1];
  return undated !== undefined && Object.hasOwn(table, undated) ? table[undated] : undefined;
}

/**
 * The usage with its model named and its cost by the table: the provider's name for the model is looked up first,
 * then the one asked for; null when neither has a price.
 */
export function priceUsage(usage: ModelUsage, askedModel: string, table: PriceTable): ModelUsage {
  const price = (usage.model !== undefined ? priceOf(table, usage.model) : undefined) ?? priceOf(table, askedModel);
  return { ...usage, model: usage.model ?? askedModel, cost_usd: price ? costOf(usage, price) : null };
}

export function costOf(usage: ModelUsage, price: ModelPrice): number {
  const cached = usage.cached_tokens ?? 0;
  const input = (usage.prompt_tokens - cached) * price.input + cached * (price.cached_input ?? price.input);
  return roundCost((input + usage.completion_tokens * price.output) / 1_000_000);
}
