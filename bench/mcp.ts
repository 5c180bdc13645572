/**
 * MCP servers (issue 26, "Benchmark"): one MCP tool call in a turn, three ways in the same run, interleaved sample
 * by sample, against the same reference server (`mcp-server-everything` over stdio, its `echo` tool):
 * - Arbor: a session on a worker from createSessionWorkers({ mcpServers }), as createArborWorker makes it; a turn is
 *   a model call that asks for `everything__echo`, the call as the activity `tool:everything__echo` (the worker's
 *   MCP activity and its client), and the model call after it.
 * - floor: a bare Temporal workflow doing the same work (bench/floor-workflows.ts, bareHostToolWorkflow): the same
 *   two model calls, sending the very requests the session sent for that turn, and the same MCP call through an
 *   activity of the same type and options whose body is a bare SDK client's `callTool` and nothing more.
 * - bare call: the same `callTool` by that bare client, in this process, with no Temporal: what the call itself costs.
 * Each is timed from the client (send to idle for a turn). Printed: p50 and p95 of each, Arbor over the floor, and
 * what a turn costs over the bare call.
 *   npx tsx bench/mcp.ts [samples, default 100]
 */
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type OpenAI from 'openai';
import { SessionHandle } from '../src/client/session-handle.js';
import { sessionWorkflowType } from '../src/shared/session.js';
import type { HostToolActivityInput } from '../src/shared/host-tools.js';
import { hostToolCatalogueQuery } from '../src/shared/messages.js';
import { createSessionWorkers } from '../src/worker/session-workers.js';
import { bareHostToolTurnSignal, bareTurnsQuery, type FloorModelCallInput, type FloorModelReply } from './floor-workflows.js';
import {
  arborWorkflowBundle,
  benchArgs,
  createFloorWorker,
  historyWaiter,
  lastMessage,
  loadAverage,
  quietRuntime,
  resultName,
  startDevServer,
  startFakeModel,
  writeResults,
} from './harness.js';
import type { RecordedRequest } from '../test/support/fake-openai.js';
import { percentiles, ratio } from './stats.js';

quietRuntime();
const args = benchArgs();
const samples = args.sizes[0] ?? 100;
const warmup = 5;
const owner = 'bench-mcp';
const loadAtStart = loadAverage();
const everything = fileURLToPath(new URL('../node_modules/.bin/mcp-server-everything', import.meta.url));
const toolName = 'everything__echo';
const echoArguments = { message: 'bench' };

/* ---------- the fake model ---------- */

type RequestBody = RecordedRequest['body'];
// While a session's turn runs, the requests it sends are kept, for the floor's model calls of the same turn.
let capture: RequestBody[] | undefined;
const captured = new Map<number, RequestBody[]>();
const model = await startFakeModel((request) => {
  capture?.push(request.body);
  const last = lastMessage(request);
  const match = last?.role === 'user' ? /^call (\S+)/.exec(last.content ?? '') : null;
  if (request.body.tools && match) return { toolCalls: [{ name: match[1]!, arguments: JSON.stringify(echoArguments) }] };
  return { content: 'ok' };
});

async function floorModelCall(input: FloorModelCallInput): Promise<FloorModelReply> {
  const body = captured.get(input.iteration)?.[input.step];
  if (!body) throw new Error(`no session request was captured for turn ${input.iteration}, step ${input.step}`);
  const reply = await model.openai.chat.completions.create(body as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming);
  const message = reply.choices[0]?.message;
  return {
    content: message?.content ?? null,
    tool_calls: (message?.tool_calls ?? []).flatMap((call) =>
      call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [],
    ),
  };
}

/* ---------- the bare MCP client (the floor's activity and the bare call) ---------- */

const bare = new McpClient({ name: 'bench-floor', version: '1' });
await bare.connect(new StdioClientTransport({ command: everything, args: ['stdio'], stderr: 'ignore' }));
const bareCall = async (callArguments: Record<string, unknown>) => {
  const result = (await bare.callTool({ name: 'echo', arguments: callArguments })) as CallToolResult;
  return result.content.map((item) => (item.type === 'text' ? item.text : '')).join('\n');
};

/* ---------- the workers ---------- */

const server = await startDevServer(args.server);
const { env } = server;
const queues = { arbor: 'bench-arbor-mcp', floor: 'bench-floor-mcp' };
const bundlePath = join(tmpdir(), `arbor-bench-mcp-${process.pid}.js`);
await writeFile(bundlePath, (await arborWorkflowBundle()).code);
const arborWorkers = await createSessionWorkers({
  client: env.client,
  nativeConnection: env.nativeConnection,
  namespace: env.namespace ?? 'default',
  taskQueue: queues.arbor,
  model: model.settings,
  tools: [],
  mcpServers: { everything: { command: everything, args: ['stdio'] } },
  searchAttributes: args.searchAttributes,
  workflowBundlePath: bundlePath,
  activities: { search: { engines: [] }, webFetch: false },
});
const arborRunning = arborWorkers.run();
const floorWorker = await createFloorWorker(env, queues.floor, {
  floorModelCall,
  [`tool:${toolName}`]: (input: HostToolActivityInput) => bareCall(input.arguments),
});
const floorRunning = floorWorker.run();

/* ---------- the measurement ---------- */

const workflowId = `bench-mcp-${Date.now()}`;
const started = await env.client.workflow.start(sessionWorkflowType, {
  taskQueue: queues.arbor,
  workflowId,
  args: [{ title: 'bench mcp', owner, history_limit: 5_000 }],
});
const session = new SessionHandle(workflowId, env.client);
const sessionTurnEnd = historyWaiter(env.client, workflowId);
// The floor schedules its call with the options of the session's catalogue entry for the tool.
const catalogue = await env.client.workflow.getHandle(workflowId).query(hostToolCatalogueQuery);
const entry = catalogue?.tools.find((tool) => tool.name === toolName);
if (!entry) throw new Error(`the session's catalogue has no ${toolName}`);
const floor = await env.client.workflow.start('bareHostToolWorkflow', {
  taskQueue: queues.floor,
  workflowId: `bare-mcp-${Date.now()}`,
  args: [{ tool: entry, owner, historyLimit: 5_000 }],
});
const floorTurnEnd = historyWaiter(env.client, floor.workflowId);

const times = { arbor: [] as number[], floor: [] as number[], bare: [] as number[] };
let turns = 0;
for (let i = 0; i < samples + warmup; i++) {
  const text = `call ${toolName} #${i}`;
  const iteration = i + 1;
  capture = [];
  let start = performance.now();
  await session.send(text);
  const turn = ++turns;
  await sessionTurnEnd(async () => {
    const snapshot = await session.snapshot();
    return snapshot.turn === turn && snapshot.status === 'idle';
  });
  const arborMs = performance.now() - start;
  captured.set(iteration, capture);
  capture = undefined;

  start = performance.now();
  await floor.signal(bareHostToolTurnSignal, { text, iteration });
  await floorTurnEnd(async () => (await floor.query(bareTurnsQuery)) === iteration);
  const floorMs = performance.now() - start;
  captured.delete(iteration);

  start = performance.now();
  await bareCall(echoArguments);
  const bareMs = performance.now() - start;
  if (i >= warmup) {
    times.arbor.push(arborMs);
    times.floor.push(floorMs);
    times.bare.push(bareMs);
  }
}
const toolResults = (await session.transcript()).filter((item) => item.role === 'tool');
const errors = toolResults.filter((item) => item.is_error).map((item) => item.content.slice(0, 200));

await floor.terminate();
await env.client.workflow.getHandle(workflowId, started.firstExecutionRunId).terminate();
arborWorkers.shutdown();
floorWorker.shutdown();
await Promise.all([arborRunning, floorRunning]);
await bare.close();
await model.fake.stop();
await server.teardown();

const stats = { arbor: percentiles(times.arbor), floor: percentiles(times.floor), bare_call: percentiles(times.bare) };
const results = {
  samples,
  tool: toolName,
  turn_ms: stats,
  arbor_over_floor: { p50: ratio(stats.arbor.p50, stats.floor.p50), p95: ratio(stats.arbor.p95, stats.floor.p95) },
  arbor_over_bare_call: { p50: ratio(stats.arbor.p50, stats.bare_call.p50), p95: ratio(stats.arbor.p95, stats.bare_call.p95) },
  tool_results: toolResults.length,
  tool_errors: errors,
  load_average_at_start: loadAtStart,
};
const file = await writeResults(resultName('mcp', args.server, args.searchAttributes), results);
console.log(`MCP: one ${toolName} call in a turn, ${samples} samples each (after ${warmup} warm-up)`);
console.log(`  Arbor turn   p50 ${stats.arbor.p50} ms, p95 ${stats.arbor.p95} ms`);
console.log(
  `  floor turn   p50 ${stats.floor.p50} ms, p95 ${stats.floor.p95} ms (bare workflow: same model requests, same MCP call in an activity)`,
);
console.log(`  bare call    p50 ${stats.bare_call.p50} ms, p95 ${stats.bare_call.p95} ms (the SDK client's callTool, no Temporal)`);
console.log(`  Arbor / floor: ${results.arbor_over_floor.p50}x at p50, ${results.arbor_over_floor.p95}x at p95`);
console.log(`  Arbor turn / bare call: ${results.arbor_over_bare_call.p50}x at p50, ${results.arbor_over_bare_call.p95}x at p95`);
if (errors.length > 0) console.log(`  tool errors: ${errors.length} (${errors[0]})`);
console.log(`  results in ${file}`);
process.exit(0);
