import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { defineHostTool } from '../../src/tools.js';
import { createTestArbor, ScriptedModel, text, toolCall, type ModelRequest, type TestArbor } from '../../src/testing.js';
import { readSessionTools, renderSessionTools } from '../../src/cli/session-tools.js';
import { runHistories } from '../support/run-histories.js';
import { waitUntil } from '../support/wait.js';

const calls: string[] = [];

/** 300 generated host tools, a few of them with names and descriptions a search can tell apart. */
const distinct: Record<number, { name: string; description: string }> = {
  42: { name: 'crm__find_customer', description: 'Look a customer up by their email address.' },
  137: { name: 'weather_forecast', description: 'Forecast the weather for a city.' },
  250: { name: 'billing__refund', description: 'Refund an invoice.' },
};
const catalogue = Array.from({ length: 300 }, (_, index) => {
  const { name, description } = distinct[index] ?? { name: `generated_tool_${index}`, description: `Generated tool number ${index}.` };
  return defineHostTool({
    name,
    description,
    input: z.object({ value: z.string().describe('Any text') }),
    run: ({ value }) => {
      calls.push(`${name}(${value})`);
      return `${name} ran`;
    },
  });
});

const hostNames = new Set(catalogue.map((tool) => tool.name));
const hostToolsOf = (request: ModelRequest | undefined) => (request?.tools ?? []).filter((name) => hostNames.has(name));

describe('ToolSearch over a catalogue of 300 host tools (the testing kit on the time-skipping server, scripted model)', () => {
  const model = new ScriptedModel();
  let arbor: TestArbor;

  beforeAll(async () => {
    arbor = await createTestArbor({ model, tools: catalogue, workflowBundlePath: inject('workflowBundlePath') });
  });

  afterAll(async () => {
    await arbor?.teardown();
  });

  it('sends the built-in tools and ToolSearch, finds a tool by keyword, sends its spec from the next request and runs it', async () => {
    const instruction = 'find the customer tool';
    model.forInstruction(
      instruction,
      toolCall('ToolSearch', { query: 'customer email' }),
      toolCall('crm__find_customer', { value: 'ada@example.com' }),
      text('Found Ada.'),
    );
    const session = await arbor.startSession({ instruction });
    const snapshot = await arbor.waitUntilIdle(session);

    const [first, second, third] = model.requestsFor(instruction);
    expect(first!.tools).toEqual(expect.arrayContaining(['todoWrite', 'askUser', 'ToolSearch']));
    expect(hostToolsOf(first)).toEqual([]);
    expect(first!.tools).not.toContain('Skill');
    expect(first!.system).toContain('300 more tools are available but not listed');
    // The system prompt stays as it was as tools load, so a provider's prompt cache keeps it.
    expect(second!.system).toBe(first!.system);
    expect(second!.toolResults[0]).toEqual({
      matches: ['crm__find_customer'],
      query: 'customer email',
      total_deferred_tools: 300,
      pending_mcp_servers: [],
    });
    expect(hostToolsOf(second)).toEqual(['crm__find_customer']);
    expect(second!.toolSpecs.find((spec) => spec.name === 'crm__find_customer')).toMatchObject({
      description: 'Look a customer up by their email address.',
      parameters: { type: 'object', properties: { value: { type: 'string' } } },
    });
    expect(third!.toolResults).toEqual(['crm__find_customer ran']);
    expect(calls).toContain('crm__find_customer(ada@example.com)');
    expect(snapshot.tools).toEqual({ deferred: 300, loaded: ['crm__find_customer'] });
  });

  it('lists each host tool as deferred or loaded in arbor tools, and the built-in ones as sent', async () => {
    const instruction = 'load one tool to list';
    model.forInstruction(instruction, toolCall('ToolSearch', { query: 'select:weather_forecast' }), text('Loaded.'));
    const session = await arbor.startSession({ instruction });
    await arbor.waitUntilIdle(session);
    await arbor.settle(session);
    const rows = await readSessionTools(arbor.client.temporal, session.id);
    const deferral = (name: string) => rows.find((row) => row.name === name)?.deferral;
    expect([deferral('weather_forecast'), deferral('billing__refund'), deferral('todoWrite')]).toEqual(['loaded', 'deferred', null]);
    expect(rows.filter((row) => row.deferral === 'deferred')).toHaveLength(299);
    expect(renderSessionTools(rows).split('\n')[0]).toMatch(/SEARCH$/);
  });

  it('loads exactly the tools a select: query names, several at once, and caps keyword matches at max_results', async () => {
    const instruction = 'select two tools';
    model.forInstruction(
      instruction,
      toolCall('ToolSearch', { query: 'select:weather_forecast,billing__refund,no_such_tool' }),
      toolCall('ToolSearch', { query: 'generated tool', max_results: 3 }),
      text('Loaded.'),
    );
    const session = await arbor.startSession({ instruction });
    const snapshot = await arbor.waitUntilIdle(session);

    const [, second, third] = model.requestsFor(instruction);
    expect(second!.toolResults[0]).toMatchObject({ matches: ['weather_forecast', 'billing__refund'], total_deferred_tools: 300 });
    expect(hostToolsOf(second).sort()).toEqual(['billing__refund', 'weather_forecast']);
    expect(third!.toolResults[0]).toMatchObject({ matches: ['generated_tool_0', 'generated_tool_1', 'generated_tool_2'] });
    expect(hostToolsOf(third)).toHaveLength(5);
    expect(snapshot.tools?.loaded).toEqual([
      'weather_forecast',
      'billing__refund',
      'generated_tool_0',
      'generated_tool_1',
      'generated_tool_2',
    ]);
  });

  it('refuses a call to a deferred tool the model has not loaded, telling it to use ToolSearch, and does not run it; an unknown name is told only the tools it is sent', async () => {
    const instruction = 'call without searching';
    model.forInstruction(instruction, toolCall('generated_tool_7', { value: 'x' }), toolCall('no_such_tool'), text('I will search first.'));
    const session = await arbor.startSession({ instruction });
    await arbor.waitUntilIdle(session);

    const [, second, third] = model.requestsFor(instruction);
    expect(second!.toolResults[0]).toMatch(
      /generated_tool_7 is a deferred tool .* Call ToolSearch with query "select:generated_tool_7" first/,
    );
    // An unknown name is told the tools the model is sent, not the 300 deferred ones.
    expect(third!.toolResults[0]).toMatch(
      /^Error: Unknown tool "no_such_tool"\. Available tools: .*ToolSearch\. This session has the rtc tool profile\.$/,
    );
    expect(third!.toolResults[0]).not.toContain('generated_tool_');
    expect(calls).not.toContain('generated_tool_7(x)');
  });

  it('defers nothing, and offers no ToolSearch, to a session given fewer host tools than the limit', async () => {
    const instruction = 'few tools';
    model.forInstruction(instruction, text('Fine.'));
    const session = await arbor.startSession({ instruction, tools: ['todoWrite', 'weather_forecast', 'billing__refund'] });
    const snapshot = await arbor.waitUntilIdle(session);

    const [first] = model.requestsFor(instruction);
    expect(first!.tools).toEqual(['todoWrite', 'weather_forecast', 'billing__refund']);
    expect(snapshot.tools).toBeUndefined();
  });

  it('defers the host tools of a sub-agent given them, which starts with nothing loaded of its own', async () => {
    const instruction = 'delegate the weather';
    const task = 'Forecast Paris with the weather tool';
    model.forInstruction(
      instruction,
      toolCall('ToolSearch', { query: 'select:billing__refund' }),
      toolCall('subAgent', { title: 'Weather', instruction: task, mode: 'sync' }),
      text('Delegated.'),
    );
    model.forInstruction(
      task,
      toolCall('ToolSearch', { query: 'weather' }),
      toolCall('weather_forecast', { value: 'Paris' }),
      text('Sunny.'),
    );
    const session = await arbor.startSession({ instruction });
    await arbor.waitUntilIdle(session);

    const [first, second] = model.requestsFor(task);
    expect(first!.tools).toContain('ToolSearch');
    expect(hostToolsOf(first)).toEqual([]);
    expect(second!.toolResults[0]).toMatchObject({ matches: ['weather_forecast'], total_deferred_tools: 300 });
    expect(hostToolsOf(second)).toEqual(['weather_forecast']);
    expect(calls).toContain('weather_forecast(Paris)');
  });

  it('keeps the loaded tools across continue-as-new: a later run still sends their specs, and only theirs', async () => {
    const instruction = 'load then run long';
    model.forInstruction(
      instruction,
      toolCall('ToolSearch', { query: 'select:weather_forecast' }),
      toolCall('createGoal', { condition: 'Twenty steps done', max_turns: 20 }),
      ...Array.from({ length: 21 }, (_, index) => text(`step ${index}`)),
    );
    const session = await arbor.startSession({ instruction, history_limit: 100 });
    await waitUntil(() => model.requestsFor(instruction).length === 22, 90_000);
    await arbor.settle(session);
    const snapshot = await arbor.waitUntilIdle(session);

    expect((await runHistories(arbor.env.client, session.id)).length).toBeGreaterThanOrEqual(2);
    expect(hostToolsOf(model.requestsFor(instruction).at(-1))).toEqual(['weather_forecast']);
    expect(snapshot.tools).toEqual({ deferred: 300, loaded: ['weather_forecast'] });
  });
});
