/**
 * Issue 29: the latency of one turn (one model call, no tools) with tracing on (every span exported over OTLP/HTTP to
 * a receiver on loopback) against the same turn with tracing off, in the same process against the same server, turns
 * interleaved. Both workers run Arbor's activities; the traced one has the tracing interceptors, its workflow bundle
 * and its span sink, as createArborWorker adds them when OTEL_EXPORTER_OTLP_ENDPOINT is set.
 *   npx tsx bench/tracing.ts [turns] [--sqlite]
 */
import { bundleWorkflowCode } from '@temporalio/worker';
import { SessionHandle } from '../src/client/session-handle.js';
import { sessionWorkflowType } from '../src/shared/session.js';
import { startTracing } from '../src/tracing/tracing-runtime.js';
import { workflowBundlerOptions } from '../src/worker/workflow-code.js';
import { OtlpReceiver } from '../test/support/otlp-receiver.js';
import {
  benchArgs,
  createArborBenchWorker,
  loadAverage,
  quietRuntime,
  resultName,
  startDevServer,
  startFakeModel,
  waitFor,
  writeResults,
} from './harness.js';
import { percentiles } from './stats.js';

quietRuntime();
const args = benchArgs();
const turns = args.size ?? 60;
const loadAtStart = loadAverage();
const warmup = 5;

const receiver = await new OtlpReceiver().start();
process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
process.env.OTEL_SERVICE_NAME = 'arbor-bench';
const tracing = startTracing({ content: false });
const silent = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };
const tracedBundle = await bundleWorkflowCode({ ...workflowBundlerOptions(true), logger: silent });

const model = await startFakeModel();
const server = await startDevServer(args.server);
const { env } = server;
const offWorker = await createArborBenchWorker(env, model, 'bench-tracing-off');
const { interceptors, sinks } = tracing.workerOptions(true);
const onWorker = await createArborBenchWorker(env, model, 'bench-tracing-on', {
  worker: { workflowBundle: tracedBundle, interceptors, sinks },
});

const figures = await offWorker.runUntil(() => onWorker.runUntil(measure));
async function measure() {
  const start = async (taskQueue: string) => {
    const sessionId = `bench-${taskQueue}-${Date.now()}`;
    await env.client.workflow.start(sessionWorkflowType, { taskQueue, workflowId: sessionId, args: [{ title: 'bench' }] });
    return new SessionHandle(sessionId, env.client);
  };
  const off = await start('bench-tracing-off');
  const on = await start('bench-tracing-on');
  const turn = async (session: SessionHandle, i: number) => {
    const begin = performance.now();
    await session.send(`turn ${i} ${'x'.repeat(200)}`);
    await waitFor(async () => {
      const snapshot = await session.snapshot();
      return snapshot.turn === i + 1 && snapshot.status === 'idle';
    });
    return performance.now() - begin;
  };
  const offTimes: number[] = [];
  const onTimes: number[] = [];
  // Turns alternate, off then on, so that the shared machine's load hits both alike.
  for (let i = 0; i < turns + warmup; i++) {
    const offTime = await turn(off, i);
    const onTime = await turn(on, i);
    if (i >= warmup) {
      offTimes.push(offTime);
      onTimes.push(onTime);
    }
  }
  await tracing.flush();
  await env.client.workflow.getHandle(off.id).terminate();
  await env.client.workflow.getHandle(on.id).terminate();
  return {
    turn_ms: { tracing_on: percentiles(onTimes), tracing_off: percentiles(offTimes) },
    ratio_p50: Math.round((percentiles(onTimes).p50 / percentiles(offTimes).p50) * 100) / 100,
    spans_received: receiver.spans.length,
    spans_per_turn: Math.round((receiver.spans.length / (turns + warmup)) * 10) / 10,
  };
}

await tracing.flush();
await server.teardown();
await model.fake.stop();
await receiver.stop();
console.table(figures.turn_ms);
console.log(`T1 one turn with tracing on (OTLP/HTTP to loopback) against off, p50 ratio: ${figures.ratio_p50}x`);
console.log(`spans received: ${figures.spans_received} (${figures.spans_per_turn} per traced turn)`);
await writeResults(resultName('tracing', args.server), { server: args.server, turns, load_average_at_start: loadAtStart, ...figures });
