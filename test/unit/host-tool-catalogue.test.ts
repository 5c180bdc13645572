import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CatalogueCache } from '../../src/activities/catalogue-cache.js';
import { toolSpecs } from '../../src/activities/tool-specs.js';
import { loadConnectionSettings } from '../../src/client/connection.js';
import { defineHostTool, defineRemoteTool, ToolDefinitionError } from '../../src/tools.js';
import { buildCatalogue } from '../../src/tools/catalogue.js';
import { createArborWorker } from '../../src/worker.js';

const lookupOrder = defineHostTool({
  name: 'lookup_order',
  description: 'Look up an order by its id.',
  input: z.object({ order_id: z.string().describe('The order id') }),
  run: async ({ order_id }) => ({ order_id, status: 'shipped' }),
});

const priceQuote = defineRemoteTool({
  name: 'price-quote',
  description: 'Quote a price.',
  parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
  taskQueue: 'pricing',
  needsApproval: true,
  startToCloseTimeout: '30 seconds',
});

describe('the host tool catalogue', () => {
  it('describes each tool with its JSON schema, task queue, approval and the defaults of its timeouts and retries', () => {
    const catalogue = buildCatalogue([lookupOrder, priceQuote]);
    expect(catalogue.tools).toEqual([
      {
        name: 'lookup_order',
        description: 'Look up an order by its id.',
        parameters: {
          type: 'object',
          properties: { order_id: { type: 'string', description: 'The order id' } },
          required: ['order_id'],
        },
        needs_approval: false,
        remote: false,
        start_to_close_timeout_ms: 300_000,
        schedule_to_start_timeout_ms: 60_000,
        heartbeat_timeout_ms: 10_000,
        retry: { maximum_attempts: 3, initial_interval_ms: 1_000, backoff_coefficient: 2, maximum_interval_ms: 30_000 },
      },
      expect.objectContaining({
        name: 'price-quote',
        task_queue: 'pricing',
        needs_approval: true,
        remote: true,
        start_to_close_timeout_ms: 30_000,
      }),
    ]);
    expect(catalogue.tools[1]).not.toHaveProperty('heartbeat_timeout_ms');
  });

  it('records a needsApproval function as approval decided by the arguments', () => {
    const tool = defineHostTool({ ...lookupOrder, name: 'refund', needsApproval: (args) => args.order_id.startsWith('big') });
    expect(buildCatalogue([tool]).tools[0]!.needs_approval).toBe('by_arguments');
  });

  it('gives the same tools the same digest, and changed ones another', () => {
    const first = buildCatalogue([lookupOrder, priceQuote]);
    expect(buildCatalogue([lookupOrder, priceQuote]).digest).toBe(first.digest);
    expect(buildCatalogue([lookupOrder]).digest).not.toBe(first.digest);
    expect(buildCatalogue([{ ...lookupOrder, description: 'Other words.' }, priceQuote]).digest).not.toBe(first.digest);
  });

  it.each([
    [
      'a name that collides with a built-in tool',
      [{ ...lookupOrder, name: 'todoWrite' }],
      /Tool "todoWrite": the name is taken by one of Arbor's built-in tools/,
    ],
    [
      'a name that is not a valid OpenAI function name',
      [{ ...lookupOrder, name: 'look up' }],
      /Tool "look up": a tool name must be 1-64 letters/,
    ],
    ['a name longer than 64 characters', [{ ...lookupOrder, name: 'x'.repeat(65) }], /a tool name must be 1-64 letters/],
    ['a tool defined twice', [lookupOrder, lookupOrder], /Tool "lookup_order" is defined twice/],
    [
      'a schema that is not an object',
      [{ ...lookupOrder, input: z.string() }],
      /Tool "lookup_order": its arguments must be described by an object schema/,
    ],
    [
      'a timeout that is not a duration',
      [{ ...lookupOrder, startToCloseTimeout: 'soon' as never }],
      /startToCloseTimeout "soon" is not a duration/,
    ],
    ['a remote tool without a task queue', [{ ...priceQuote, taskQueue: '' }], /a remote tool needs the taskQueue/],
    ['something that is not a tool', [{ name: 'x' }], /tools\[0\] is not a tool definition/],
  ])('refuses %s, saying which tool and why', (_what, tools, message) => {
    expect(() => buildCatalogue(tools)).toThrow(ToolDefinitionError);
    expect(() => buildCatalogue(tools)).toThrow(message);
  });

  it('refuses a catalogue too large to record in every session, and takes 200 tools of a kilobyte each', () => {
    const many = (count: number, description: string) =>
      Array.from({ length: count }, (_, index) => ({ ...lookupOrder, name: `tool_${index}`, description }));
    expect(buildCatalogue(many(200, 'd'.repeat(1_000))).tools).toHaveLength(200);
    expect(() => buildCatalogue(many(200, 'd'.repeat(3_000)))).toThrow(/more than the 524,288 a session records/);
  });

  it('stops createArborWorker before it connects when a definition is bad', async () => {
    // Nothing listens on port 1: a worker that tried to connect would fail with a connection error instead.
    const connection = loadConnectionSettings({ TEMPORAL_CONFIG_FILE: '/nonexistent.toml' }, { address: '127.0.0.1:1' });
    await expect(createArborWorker({ connection, tools: [lookupOrder, { ...lookupOrder }] })).rejects.toThrow(
      /Tool "lookup_order" is defined twice/,
    );
  });

  it("turns a catalogue entry into the model's function spec", () => {
    const catalogue = buildCatalogue([lookupOrder]);
    const specs = toolSpecs(['todoWrite', 'lookup_order', 'not_served'], catalogue);
    expect(specs.map((spec) => spec.function.name)).toEqual(['todoWrite', 'lookup_order']);
    expect(specs[1]!.function).toEqual({
      name: 'lookup_order',
      description: lookupOrder.description,
      parameters: catalogue.tools[0]!.parameters,
    });
  });
});

describe('the catalogue cache of the model activity', () => {
  const own = buildCatalogue([lookupOrder]);
  const other = buildCatalogue([priceQuote]);

  it("uses the worker's own catalogue when the digest is its own, without asking the session", async () => {
    const asked: string[] = [];
    const cache = new CatalogueCache(own, async (sessionId) => (asked.push(sessionId), null));
    await expect(cache.resolve('s1', 'r1', own.digest)).resolves.toBe(own);
    await expect(cache.resolve('s1', 'r1', undefined)).resolves.toBeUndefined();
    expect(asked).toEqual([]);
  });

  it('asks the session for a catalogue it does not serve once, then keeps it by digest', async () => {
    const asked: string[] = [];
    const cache = new CatalogueCache(own, async (sessionId) => (asked.push(sessionId), other));
    await expect(cache.resolve('s1', 'r1', other.digest)).resolves.toEqual(other);
    await expect(cache.resolve('s2', 'r2', other.digest)).resolves.toEqual(other);
    expect(asked).toEqual(['s1']);
  });

  it('fails when the session holds another catalogue than the digest names', async () => {
    const cache = new CatalogueCache(undefined, async () => own);
    await expect(cache.resolve('s1', 'r1', other.digest)).rejects.toThrow(/holds no host tool catalogue with digest/);
  });
});
