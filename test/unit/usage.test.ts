import { describe, expect, it } from 'vitest';
import { readModelReply } from '../../src/activities/model-reply.js';
import { defaultPrices, priceUsage, pricesFrom } from '../../src/activities/prices.js';
import { UsageLedger } from '../../src/workflows/usage-ledger.js';
import { addUsage, emptyTotals, describeCost } from '../../src/shared/usage.js';

const completion = (usage: unknown, model: unknown = 'gpt-4o-2024-08-06') => ({
  model,
  choices: [{ message: { role: 'assistant', content: 'Hi.' } }],
  usage,
});

describe('reading and pricing usage', () => {
  it("reads the provider's prompt, completion, cached and reasoning tokens and the model that answered", () => {
    const reply = readModelReply(
      completion({
        prompt_tokens: 1_000,
        completion_tokens: 200,
        prompt_tokens_details: { cached_tokens: 400 },
        completion_tokens_details: { reasoning_tokens: 50 },
      }),
    );
    expect(reply.usage).toEqual({
      prompt_tokens: 1_000,
      completion_tokens: 200,
      cached_tokens: 400,
      reasoning_tokens: 50,
      model: 'gpt-4o-2024-08-06',
    });
  });

  it("leaves out a provider's odd counts instead of failing: negative, fractional, huge, text, or missing", () => {
    expect(readModelReply(completion(undefined)).usage).toBeUndefined();
    expect(readModelReply(completion('lots')).usage).toBeUndefined();
    expect(readModelReply(completion({ prompt_tokens: -1, completion_tokens: 'x' })).usage).toBeUndefined();
    expect(readModelReply(completion({ prompt_tokens: 1.5, completion_tokens: 7 }, 42)).usage).toEqual({
      prompt_tokens: 0,
      completion_tokens: 7,
    });
    // Cached tokens are part of the prompt's, never more.
    expect(
      readModelReply(completion({ prompt_tokens: 10, completion_tokens: 1e12, prompt_tokens_details: { cached_tokens: 99 } })).usage,
    ).toMatchObject({ prompt_tokens: 10, completion_tokens: 0, cached_tokens: 10 });
  });

  it('prices a dated snapshot by its model, cached input at its own price, and an unknown model as null rather than a guess', () => {
    const usage = { prompt_tokens: 1_000_000, completion_tokens: 100_000, cached_tokens: 200_000, model: 'gpt-4o-2024-08-06' };
    // 800,000 * 2.50 + 200,000 * 1.25 + 100,000 * 10 per million.
    expect(priceUsage(usage, 'gpt-4o', defaultPrices).cost_usd).toBe(3.25);
    expect(priceUsage({ prompt_tokens: 5, completion_tokens: 5 }, 'llama3.1', defaultPrices)).toMatchObject({
      model: 'llama3.1',
      cost_usd: null,
    });
  });

  it('lays ARBOR_PRICES over the defaults, removes a model given null, and refuses a table that is not one', () => {
    const table = pricesFrom('{"llama3.1": {"input": 0.1, "output": 0.2}, "gpt-4o": null}');
    expect(table['llama3.1']).toEqual({ input: 0.1, output: 0.2 });
    expect(table['gpt-4o']).toBeUndefined();
    expect(table['gpt-4o-mini']).toEqual(defaultPrices['gpt-4o-mini']);
    expect(() => pricesFrom('{"m": {"input": "cheap"}}')).toThrow(/ARBOR_PRICES is not a price table/);
    expect(() => pricesFrom('not json')).toThrow(/ARBOR_PRICES is not JSON/);
  });

  it('says "unknown" for a cost no call had a price for, and counts the unpriced calls beside a known cost', () => {
    const unpriced = addUsage(emptyTotals(), { prompt_tokens: 1, completion_tokens: 1, cost_usd: null });
    expect(describeCost(unpriced)).toBe('unknown');
    expect(describeCost(addUsage(unpriced, { prompt_tokens: 1, completion_tokens: 1, cost_usd: 0.5 }))).toBe('$0.5000 + 1 call unpriced');
  });
});

describe("a root's allowances", () => {
  const totals = (total_tokens: number, calls = 1) => ({ ...emptyTotals(), calls, total_tokens, prompt_tokens: total_tokens });

  it('hands each member half of what the budget has left less what others hold, and refuses once nothing is left', () => {
    const root = new UsageLedger({ session_id: 'root-1', root_session_id: 'root-1' }, () => undefined);
    root.setBudget({ max_tokens: 1_000 });
    expect(root.report({ session_id: 'a', usage: totals(0, 0), request_id: 1 })).toEqual({
      request_id: 1,
      allowance: { total_tokens: 500 },
    });
    expect(root.report({ session_id: 'b', usage: totals(0, 0), request_id: 1 })).toEqual({
      request_id: 1,
      allowance: { total_tokens: 250 },
    });
    // a spent 600 (one call past its 500), b holds 250: 150 left, half for a.
    expect(root.report({ session_id: 'a', usage: totals(600), request_id: 2 })).toEqual({
      request_id: 2,
      allowance: { total_tokens: 675 },
    });
    // b ends having spent 100: what it held is free again, and the root itself may not start past 1,000 less a's hold.
    root.report({ session_id: 'b', usage: totals(100), final: true });
    expect(root.tree().total_tokens).toBe(700);
    expect(root.ownRefusal()).toBeNull();
    root.report({ session_id: 'a', usage: totals(950), final: true });
    expect(root.ownRefusal()).toMatch(/^The token budget is spent: this session's tree has used 1,050 tokens of its max_tokens 1,000\./);
    // The message names the session whose budget to raise.
    expect(root.ownRefusal()).toContain('`arbor budget root-1 --max-tokens N --max-cost-usd X`');
    expect(root.report({ session_id: 'c', usage: totals(0, 0), request_id: 1 })?.refusal).toMatch(/token budget is spent/);
  });

  it('counts a report sent twice once, and ignores reports that are not reports', () => {
    const root = new UsageLedger({ session_id: 'root-1', root_session_id: 'root-1' }, () => undefined);
    root.report({ session_id: 'a', usage: totals(10) });
    root.report({ session_id: 'a', usage: totals(10) });
    root.report({ session_id: 'b', usage: { calls: 'many' } } as never);
    root.report(null as never);
    expect(root.tree().total_tokens).toBe(10);
  });
});
