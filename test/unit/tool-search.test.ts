import { describe, expect, it } from 'vitest';
import type { HostToolEntry } from '../../src/shared/host-tools.js';
import { searchTools } from '../../src/workflows/tool-search.js';
import { DeferredTools, withToolSearch } from '../../src/workflows/deferred-tools.js';
import { settingsFromEnvironment } from '../../src/workflows/deployment-settings.js';
import { toolSearchLimits } from '../../src/activities/tool-search-settings.js';

function entry(name: string, description: string, properties: Record<string, unknown> = {}): HostToolEntry {
  return {
    name,
    description,
    parameters: { type: 'object', properties },
    needs_approval: false,
    remote: false,
    start_to_close_timeout_ms: 60_000,
    schedule_to_start_timeout_ms: 60_000,
    retry: { maximum_attempts: 3, initial_interval_ms: 1_000, backoff_coefficient: 2, maximum_interval_ms: 30_000 },
  };
}

const catalogue = [
  entry('notes_by_hint', 'Reads notes.', { invoice: { type: 'string' } }),
  entry('billing_report', 'Summarises an invoice for accounting.'),
  entry('invoice_lookup', 'Finds one.'),
  entry('invoice', 'Shows one.'),
  entry('weather', 'Forecast for a city.', { city: { type: 'string', description: 'City name' } }),
];

describe('ToolSearch scoring', () => {
  it('ranks the exact name first, then names containing the word, then hints, then descriptions, as the seed scores them', () => {
    expect(searchTools(catalogue, 'invoice', 10)).toEqual(['invoice', 'invoice_lookup', 'notes_by_hint', 'billing_report']);
  });

  it('adds the scores of each word, and caps the matches at max_results', () => {
    expect(searchTools(catalogue, 'forecast city', 10)).toEqual(['weather']);
    expect(searchTools(catalogue, 'invoice', 2)).toEqual(['invoice', 'invoice_lookup']);
  });

  it('finds nothing for a word no tool has', () => {
    expect(searchTools(catalogue, 'spaceship', 5)).toEqual([]);
  });

  it('looks select: names up exactly, several comma-separated, in the order given, ignoring names it does not know', () => {
    expect(searchTools(catalogue, 'select:weather, invoice,nope', 1)).toEqual(['weather', 'invoice']);
    expect(searchTools(catalogue, 'select:WEATHER', 5)).toEqual(['weather']);
  });
});

describe('which host tools are deferred', () => {
  const environment = (count: number, limits = toolSearchLimits({ maxHostTools: 3 })) =>
    settingsFromEnvironment({
      model: 'm',
      provider: 'openai-compatible',
      search_attributes: false,
      host_tools: { digest: 'd', tools: catalogue.slice(0, count) },
      ...(limits ? { tool_search: limits } : {}),
    });

  it('defers every host tool and adds ToolSearch once the session has more host tools than the limit', () => {
    const tools = new DeferredTools();
    const names = catalogue.map((tool) => tool.name);
    expect(withToolSearch(environment(5), tools, ['todoWrite', ...names])).toEqual(['todoWrite', ...names, 'ToolSearch']);
    expect(tools.deferred).toEqual(names);
    expect(tools.visible(['todoWrite', ...names, 'ToolSearch'])).toEqual(['todoWrite', 'ToolSearch']);
    tools.load(['weather', 'not_a_deferred_tool']);
    expect(tools.visible(['todoWrite', ...names, 'ToolSearch'])).toEqual(['todoWrite', 'weather', 'ToolSearch']);
    expect(tools.snapshot()).toEqual({ tools: { deferred: 5, loaded: ['weather'] } });
    expect(tools.carry()).toEqual({ loaded_tools: ['weather'] });
  });

  it('defers nothing at the limit, with tool search off, or by schema size only when the specs pass its token limit', () => {
    const names = catalogue.map((tool) => tool.name);
    const atLimit = new DeferredTools();
    expect(withToolSearch(environment(3), atLimit, names.slice(0, 3))).toEqual(names.slice(0, 3));
    expect(atLimit.snapshot()).toEqual({});
    expect(withToolSearch(environment(5, false), new DeferredTools(), names)).toEqual(names);
    const bySize = new DeferredTools();
    withToolSearch(environment(5, toolSearchLimits({ maxHostTools: 100, maxSchemaTokens: 10 })), bySize, names);
    expect(bySize.deferred).toEqual(names);
  });

  it('reads its limits from the environment variables and refuses a limit that is not a whole number', () => {
    expect(toolSearchLimits(undefined, {})).toEqual({ max_host_tools: 40, max_schema_tokens: 20_000 });
    expect(toolSearchLimits(undefined, { ARBOR_TOOL_SEARCH_MAX_TOOLS: '10' })).toMatchObject({ max_host_tools: 10 });
    expect(toolSearchLimits(undefined, { ARBOR_TOOL_SEARCH: 'off' })).toBe(false);
    expect(() => toolSearchLimits(undefined, { ARBOR_TOOL_SEARCH_MAX_TOOLS: 'many' })).toThrow(/ARBOR_TOOL_SEARCH_MAX_TOOLS/);
    expect(() => toolSearchLimits({ maxHostTools: -1 })).toThrow(/maxHostTools/);
  });
});
