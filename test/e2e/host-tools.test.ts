import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ArborClient } from '../../src/client.js';
import type { ConnectionSettings } from '../../src/client/connection.js';
import type { SessionHandle } from '../../src/client/session-handle.js';
import type { TranscriptEntry } from '../../src/shared/session.js';
import { defineHostTool, defineRemoteTool, type HostToolActivityInput, type HostToolContext } from '../../src/tools.js';
import { createArborWorker, type ArborWorker } from '../../src/worker.js';
import { devServerSettings } from '../support/connection.js';
import { FakeOpenAI } from '../support/fake-openai.js';
import { call, ScriptedModel, toolResults } from '../support/scripted-model.js';
import { workflowBundle } from '../support/time-skipping.js';

/** What the tools saw, for assertions: every call's arguments and context, by tool. */
const seen: Record<string, { args: unknown; context: Omit<HostToolContext, 'signal' | 'heartbeat'> }[]> = {};
function record(name: string, args: unknown, context: HostToolContext) {
  const { signal: _signal, heartbeat: _heartbeat, ...rest } = context;
  (seen[name] ??= []).push({ args, context: rest });
}

const arrivals: (() => void)[] = [];
let hangStarted!: () => void;
const hangStartedOnce = new Promise<void>((resolve) => (hangStarted = resolve));
let hangAborted!: (reason: unknown) => void;
const hangAbortedOnce = new Promise<unknown>((resolve) => (hangAborted = resolve));

const pricesQueue = `prices-${randomUUID()}`;
const ordersQueue = `orders-${randomUUID()}`;

const tools = [
  defineHostTool({
    name: 'lookup_order',
    description: 'Look up an order by its id.',
    input: z.object({ order_id: z.string().describe('The order id, e.g. A1') }),
    run: async ({ order_id }, context) => {
      record('lookup_order', { order_id }, context);
      return { order_id, status: 'shipped', items: 2 };
    },
  }),
  defineHostTool({
    name: 'greet',
    description: 'Greets by name.',
    input: z.object({ name: z.string() }),
    run: ({ name }) => `Hello, ${name}!`,
  }),
  defineHostTool({
    name: 'flaky_warehouse',
    description: 'Always fails.',
    input: z.object({}),
    retry: { maximumAttempts: 2, initialInterval: 100 },
    run: async (args, context) => {
      record('flaky_warehouse', args, context);
      throw new Error('the warehouse is offline');
    },
  }),
  defineHostTool({
    name: 'closed_order',
    description: 'Refuses for good.',
    input: z.object({}),
    run: async (args, context) => {
      record('closed_order', args, context);
      throw ApplicationFailure.nonRetryable('order A1 is closed and cannot change', 'OrderClosed');
    },
  }),
  defineHostTool({
    name: 'slow_report',
    description: 'Takes too long.',
    input: z.object({}),
    startToCloseTimeout: '1 second',
    retry: { maximumAttempts: 2, initialInterval: 100 },
    run: async (args, context) => {
      record('slow_report', args, context);
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      return 'too late';
    },
  }),
  defineHostTool({
    name: 'meet',
    description: 'Returns once two calls of it run at the same time.',
    input: z.object({ who: z.string() }),
    run: async ({ who }) => {
      const together = new Promise<void>((resolve) => arrivals.push(resolve));
      if (arrivals.length >= 2) for (const arrive of arrivals.splice(0)) arrive();
      const alone = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${who} waited alone`)), 10_000));
      await Promise.race([together, alone]);
      return `${who} met the other call`;
    },
  }),
  defineHostTool({
    name: 'hang',
    description: 'Runs until cancelled.',
    input: z.object({}),
    heartbeatTimeout: '2 seconds',
    run: async (_args, { signal }) => {
      hangStarted();
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      hangAborted(signal.reason);
      return 'aborted';
    },
  }),
  defineHostTool({
    name: 'huge_export',
    description: 'Returns too much.',
    input: z.object({}),
    run: () => 'x'.repeat(100_001),
  }),
  defineHostTool({
    name: 'order_notes',
    description: 'Served on its own task queue by this worker.',
    input: z.object({ order_id: z.string() }),
    taskQueue: ordersQueue,
    run: ({ order_id }) => ({ order_id, notes: 'leave at the door' }),
  }),
  defineRemoteTool({
    name: 'price_quote',
    description: 'Quote the price of a SKU.',
    parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
    taskQueue: pricesQueue,
  }),
  defineRemoteTool({
    name: 'ghost_tool',
    description: 'Nobody serves it.',
    parameters: { type: 'object', properties: {} },
    taskQueue: `nobody-${randomUUID()}`,
    scheduleToStartTimeout: '2 seconds',
  }),
];

describe('host tools on the dev server', () => {
  const fake = new FakeOpenAI();
  const model = new ScriptedModel(fake);
  let settings: ConnectionSettings;
  let worker: ArborWorker;
  let running: Promise<void>;
  let pricesConnection: NativeConnection;
  let prices: Worker;
  let pricesRunning: Promise<void>;
  let client: ArborClient;
  const priceInputs: HostToolActivityInput[] = [];

  beforeAll(async () => {
    await fake.start();
    settings = devServerSettings();
    worker = await createArborWorker({
      connection: settings,
      model: { apiKey: 'sk-host-tools', baseURL: fake.baseURL, defaultModel: 'fake-model', requestTimeoutMs: 10_000 },
      tools,
    });
    running = worker.run();
    // A second worker, knowing nothing of Arbor, serves the remote tool by its activity type on its own task queue.
    pricesConnection = await NativeConnection.connect(settings.connectionOptions);
    prices = await Worker.create({
      connection: pricesConnection,
      namespace: settings.namespace,
      taskQueue: pricesQueue,
      activities: {
        'tool:price_quote': async (input: HostToolActivityInput) => {
          priceInputs.push(input);
          return { sku: input.arguments.sku, price_eur: 12.5 };
        },
      },
    });
    pricesRunning = prices.run();
    client = await ArborClient.fromSettings(settings);
  });

  afterAll(async () => {
    await client?.close();
    worker?.shutdown();
    prices?.shutdown();
    await running;
    await pricesRunning;
    await pricesConnection?.close();
    await fake.stop();
  });

  /** Runs a demo-model session whose instruction names the calls (`/tool NAME {json}` lines) and returns its tool results. */
  async function demoCalls(instruction: string): Promise<{ session: SessionHandle; results: TranscriptEntry[] }> {
    const session = await client.startSession({ instruction, model: 'demo' });
    await session.waitUntilIdle({ timeoutMs: 60_000 });
    const results = (await session.transcript()).filter((entry) => entry.role === 'tool');
    return { session, results };
  }

  it('shows the model a host tool with its JSON schema and gives it the JSON result', async () => {
    const instruction = `Where is my order? ${randomUUID()}`;
    model.script(instruction, call('lookup_order', { order_id: 'A1' }), { content: 'Your order A1 has shipped.' });
    const session = await client.startSession({ instruction });
    const snapshot = await session.waitUntilIdle({ timeoutMs: 30_000 });
    expect(snapshot.last_message?.content).toBe('Your order A1 has shipped.');
    const [first, second] = fake.requestsFor(instruction);
    const spec = first!.body.tools?.find((tool) => tool.function.name === 'lookup_order');
    expect(spec?.function).toEqual({
      name: 'lookup_order',
      description: 'Look up an order by its id.',
      parameters: {
        type: 'object',
        properties: { order_id: { type: 'string', description: 'The order id, e.g. A1' } },
        required: ['order_id'],
      },
    });
    expect(first!.body.tools?.map((tool) => tool.function.name)).toEqual(
      expect.arrayContaining(['todoWrite', 'price_quote', 'ghost_tool']),
    );
    expect(toolResults(second!)).toEqual([JSON.stringify({ order_id: 'A1', status: 'shipped', items: 2 })]);
    const calls = seen.lookup_order!.filter((entry) => entry.context.sessionId === session.id);
    expect(calls).toEqual([
      {
        args: { order_id: 'A1' },
        context: {
          sessionId: session.id,
          rootSessionId: session.id,
          owner: 'default',
          toolCallId: expect.stringMatching(/^call_/),
          idempotencyKey: `${session.id}/turn-1/round-1/call-0`,
          attempt: 1,
        },
      },
    ]);
  });

  it('runs each call as the activity tool:<name> whose summary names the tool, and records the catalogue at start', async () => {
    const { session, results } = await demoCalls('/tool greet {"name": "Ada"}');
    expect(results.map((entry) => entry.content)).toEqual(['Hello, Ada!']);
    const history = await client.temporal.workflow.getHandle(session.id).fetchHistory();
    const scheduled = history.events!.flatMap((event) => (event.activityTaskScheduledEventAttributes ? [event] : []));
    const tool = scheduled.find((event) => event.activityTaskScheduledEventAttributes!.activityType?.name === 'tool:greet');
    expect(Buffer.from(tool!.userMetadata!.summary!.data!).toString()).toBe('"greet: {\\"name\\": \\"Ada\\"}"');
    // prepareSession's result, in the local activity's marker, holds the catalogue.
    const marker = history.events!.find((event) => event.markerRecordedEventAttributes?.details?.result)!;
    const environment = JSON.parse(Buffer.from(marker.markerRecordedEventAttributes!.details!.result!.payloads![0]!.data!).toString());
    expect(environment.host_tools.tools.map((tool: { name: string }) => tool.name)).toEqual(tools.map((tool) => tool.name));
    expect(environment.host_tools.tools.find((tool: { name: string }) => tool.name === 'price_quote')).toMatchObject({
      task_queue: pricesQueue,
      needs_approval: false,
      remote: true,
    });
    // The model calls carry the catalogue's digest, not the catalogue.
    const modelCall = scheduled.find((event) => event.activityTaskScheduledEventAttributes!.activityType?.name === 'callModel')!;
    const input = JSON.parse(Buffer.from(modelCall.activityTaskScheduledEventAttributes!.input!.payloads![0]!.data!).toString());
    expect(input.host_tools_digest).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.stringify(input)).not.toContain('Look up an order by its id.');
  });

  it('replays a session that called a host tool with a worker that has no tools: the catalogue comes from history', async () => {
    const { session } = await demoCalls('/tool greet {"name": "Replay"}');
    await session.stop();
    const history = await client.temporal.workflow.getHandle(session.id).fetchHistory();
    await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, session.id)).resolves.toBeUndefined();
  });

  it('gives the model the zod refusal of arguments the schema does not accept, without running the handler', async () => {
    const before = seen.lookup_order?.length ?? 0;
    const { results } = await demoCalls('/tool lookup_order {"order_id": 5}');
    expect(results[0]).toMatchObject({ is_error: true });
    expect(results[0]!.content).toMatch(
      /^Error: Invalid arguments for lookup_order:\n✖ Invalid input: expected string, received number\n {2}→ at order_id/,
    );
    expect(seen.lookup_order?.length ?? 0).toBe(before);
  });

  it('retries a handler that throws, with the same idempotency key, then gives the model its error', async () => {
    const { session, results } = await demoCalls('/tool flaky_warehouse {}');
    expect(results[0]).toMatchObject({ is_error: true, content: 'Error: Tool flaky_warehouse failed: the warehouse is offline' });
    const calls = seen.flaky_warehouse!.filter((entry) => entry.context.sessionId === session.id);
    expect(calls.map((entry) => entry.context.attempt)).toEqual([1, 2]);
    expect(new Set(calls.map((entry) => entry.context.idempotencyKey))).toEqual(new Set([`${session.id}/turn-1/round-1/call-0`]));
  });

  it('does not retry a non-retryable ApplicationFailure', async () => {
    const { session, results } = await demoCalls('/tool closed_order {}');
    expect(results[0]).toMatchObject({ is_error: true, content: 'Error: Tool closed_order failed: order A1 is closed and cannot change' });
    expect(seen.closed_order!.filter((entry) => entry.context.sessionId === session.id)).toHaveLength(1);
  });

  it('tells the model a call timed out after its attempts', async () => {
    const { session, results } = await demoCalls('/tool slow_report {}');
    expect(results[0]).toMatchObject({
      is_error: true,
      content: 'Error: Tool slow_report timed out: it ran longer than 1 s (attempts allowed: 2).',
    });
    expect(seen.slow_report!.filter((entry) => entry.context.sessionId === session.id)).toHaveLength(2);
  });

  it('refuses a result over the tool-result limit as a tool error', async () => {
    const { results } = await demoCalls('/tool huge_export {}');
    expect(results[0]).toMatchObject({ is_error: true });
    expect(results[0]!.content).toBe('Error: Tool huge_export returned 100,001 characters, more than the 100,000 a tool result may have.');
  });

  it('runs the independent calls of one round at the same time', async () => {
    const { results } = await demoCalls('/tool meet {"who": "first"}\n/tool meet {"who": "second"}');
    expect(results.map((entry) => entry.content)).toEqual(['first met the other call', 'second met the other call']);
  });

  it('schedules a remote tool on its task queue, where a second worker runs it by its activity type', async () => {
    const { session, results } = await demoCalls('/tool price_quote {"sku": "TREE-1"}');
    expect(results.map((entry) => entry.content)).toEqual([JSON.stringify({ sku: 'TREE-1', price_eur: 12.5 })]);
    expect(priceInputs.find((input) => input.context.session_id === session.id)).toEqual({
      arguments: { sku: 'TREE-1' },
      context: {
        session_id: session.id,
        root_session_id: session.id,
        owner: 'default',
        tool_call_id: expect.any(String),
        idempotency_key: `${session.id}/turn-1/round-1/call-0`,
      },
    });
  });

  it('serves a host tool that names its own task queue from an extra worker polling it', async () => {
    const { results } = await demoCalls('/tool order_notes {"order_id": "A7"}');
    expect(results.map((entry) => entry.content)).toEqual([JSON.stringify({ order_id: 'A7', notes: 'leave at the door' })]);
  });

  it('tells the model when no worker picks a call up from the tool task queue in time', async () => {
    const { results } = await demoCalls('/tool ghost_tool {}');
    expect(results[0]).toMatchObject({ is_error: true });
    expect(results[0]!.content).toMatch(
      /^Error: Tool ghost_tool did not run: no worker picked the call up from task queue "nobody-[0-9a-f-]+" within 2 s\.$/,
    );
  });

  it('fires the handler’s AbortSignal when the session is stopped', async () => {
    const session = await client.startSession({ instruction: '/tool hang {}', model: 'demo' });
    await hangStartedOnce;
    await session.stop();
    const reason = await Promise.race([hangAbortedOnce, new Promise((resolve) => setTimeout(() => resolve('not aborted'), 20_000))]);
    expect(reason).not.toBe('not aborted');
    expect((await client.temporal.workflow.getHandle(session.id).describe()).status.name).toBe('CANCELLED');
  });

  it('lets a session name host tools, and says in a notice which named tools no worker serves', async () => {
    const instruction = `Only some tools. ${randomUUID()}`;
    model.script(instruction, { content: 'Done.' });
    const session = await client.startSession({ instruction, tools: ['greet', 'todoWrite', 'no_such_tool'] });
    await session.waitUntilIdle({ timeoutMs: 30_000 });
    expect(fake.requestsFor(instruction)[0]!.body.tools?.map((tool) => tool.function.name)).toEqual(['todoWrite', 'greet']);
    const notice = (await session.transcript()).find((entry) => entry.role === 'notice');
    expect(notice?.content).toMatch(/^No worker serves the tool\(s\) no_such_tool: the session goes on without them/);
  });

  it('gives sub-agents the host tools they are named, and the parent’s when none are named', async () => {
    const root = `Delegate the order. ${randomUUID()}`;
    const named = `Look up A2. ${randomUUID()}`;
    const inherited = `Look up A3. ${randomUUID()}`;
    model
      .script(
        root,
        {
          toolCalls: [
            { name: 'subAgent', arguments: JSON.stringify({ title: 'Named', instruction: named, mode: 'sync', tools: ['lookup_order'] }) },
            { name: 'subAgent', arguments: JSON.stringify({ title: 'Inherited', instruction: inherited, mode: 'sync' }) },
            { name: 'subAgent', arguments: JSON.stringify({ title: 'Wrong', instruction: 'never', tools: ['no_such_tool'] }) },
          ],
        },
        { content: 'Both looked it up.' },
      )
      .script(named, call('lookup_order', { order_id: 'A2' }), { content: 'A2 shipped.' })
      .script(inherited, call('lookup_order', { order_id: 'A3' }), { content: 'A3 shipped.' });
    const session = await client.startSession({ instruction: root, tools: ['subAgent', 'lookup_order', 'greet'] });
    await session.waitUntilIdle({ timeoutMs: 60_000 });
    const namedRequests = fake.requestsFor(named);
    expect(namedRequests[0]!.body.tools?.map((tool) => tool.function.name)).toEqual(['lookup_order']);
    expect(toolResults(namedRequests[1]!)).toEqual([JSON.stringify({ order_id: 'A2', status: 'shipped', items: 2 })]);
    const inheritedRequests = fake.requestsFor(inherited);
    expect(inheritedRequests[0]!.body.tools?.map((tool) => tool.function.name)).toEqual(['subAgent', 'lookup_order', 'greet']);
    expect(toolResults(inheritedRequests[1]!)).toEqual([JSON.stringify({ order_id: 'A3', status: 'shipped', items: 2 })]);
    const rootResults = toolResults(fake.requestsFor(root)[1]!);
    expect(rootResults[2]).toMatch(/^Error: Unknown tool name\(s\) for the sub-agent: no_such_tool\. Known tools: .*lookup_order/);
    const child = seen.lookup_order!.find((entry) => (entry.args as { order_id: string }).order_id === 'A2')!;
    expect(child.context.rootSessionId).toBe(session.id);
    expect(child.context.sessionId).not.toBe(session.id);
  });
});
