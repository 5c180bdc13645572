/**
 * Issue 30: from an interrupt (a message sent with `mode: 'interrupt'` while the model call of a turn hangs) to the new
 * turn's model request reaching the fake model server. The floor does equal work: a bare workflow whose update
 * cancels the cancellation scope of its running model call activity (one that heartbeats and aborts its request on
 * cancellation, as Arbor's does) and runs a new one with the message (bench/floor-workflows.ts,
 * bareInterruptWorkflow). Samples alternate Arbor and the floor; each waits for the new turn to end.
 *   npx tsx bench/interrupt.ts [samples] [--sqlite]
 */
import { CancelledFailure, Context } from '@temporalio/activity';
import { SessionHandle } from '../src/client/session-handle.js';
import { sessionWorkflowType } from '../src/shared/session.js';
import { bareInterruptUpdate, bareMessageUpdate, bareTurnsQuery } from './floor-workflows.js';
import {
  benchArgs,
  createArborBenchWorker,
  createFloorWorker,
  lastMessage,
  loadAverage,
  quietRuntime,
  resultName,
  sleep,
  startDevServer,
  startFakeModel,
  waitFor,
  writeResults,
  type FakeModel,
} from './harness.js';
import { percentiles, ratio } from './stats.js';

quietRuntime();
const args = benchArgs();
const samples = args.size ?? 40;
const warmup = 5;
const loadAtStart = loadAverage();

// Model calls of messages starting "long" hang until the end of the run (their callers abort them); others answer.
let releaseHeld!: () => void;
const held = new Promise<void>((resolve) => (releaseHeld = resolve));
const waiters = new Map<string, (at: number) => void>();
const arrivalOf = (text: string) => new Promise<number>((resolve) => waiters.set(text, resolve));
const model = await startFakeModel((request) => {
  const text = lastMessage(request)?.content ?? '';
  waiters.get(text)?.(performance.now());
  waiters.delete(text);
  return text.startsWith('long') ? { content: 'never', after: held } : { content: 'ok' };
});

function floorActivities(fake: FakeModel) {
  return {
    async bareCancellableModelCall(text: string): Promise<string> {
      const context = Context.current();
      const beat = setInterval(() => context.heartbeat(), 1_000);
      try {
        const reply = await fake.openai.chat.completions.create(
          { model: 'bench', messages: [{ role: 'user', content: text }] },
          { signal: context.cancellationSignal },
        );
        return reply.choices[0]?.message.content ?? '';
      } catch (error) {
        // As callModel: an aborted request is the cancellation, not a failure to log.
        if (context.cancellationSignal.aborted) throw new CancelledFailure('the call was cancelled');
        throw error;
      } finally {
        clearInterval(beat);
      }
    },
  };
}

const server = await startDevServer(args.server);
const { env } = server;
const promptCancellation = { maxHeartbeatThrottleInterval: '2 seconds' } as const;
const arborWorker = await createArborBenchWorker(env, model, 'bench-arbor', { worker: promptCancellation });
const floorWorker = await createFloorWorker(env, 'bench-bare', floorActivities(model), promptCancellation);

const measured = await arborWorker.runUntil(() => floorWorker.runUntil(measure));
async function measure() {
  const sessionId = `bench-interrupt-${Date.now()}`;
  await env.client.workflow.start(sessionWorkflowType, {
    taskQueue: 'bench-arbor',
    workflowId: sessionId,
    args: [{ title: 'bench', interruptible: true }],
  });
  const session = new SessionHandle(sessionId, env.client);
  const bare = await env.client.workflow.start('bareInterruptWorkflow', {
    taskQueue: 'bench-bare',
    workflowId: `bare-interrupt-${Date.now()}`,
  });
  const arbor: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < samples + warmup; i++) {
    let hanging = arrivalOf(`long ${i}`);
    await session.send(`long ${i}`);
    await hanging;
    let arrived = arrivalOf(`short ${i}`);
    let start = performance.now();
    await session.send(`short ${i}`, { mode: 'interrupt' });
    let at = await arrived;
    if (i >= warmup) arbor.push(at - start);
    await waitFor(async () => {
      const snapshot = await session.snapshot();
      return snapshot.turn === 2 * (i + 1) && snapshot.status === 'idle';
    }, 5);
    await sleep(10);

    hanging = arrivalOf(`long floor ${i}`);
    await bare.executeUpdate(bareMessageUpdate, { args: [`long floor ${i}`] });
    await hanging;
    arrived = arrivalOf(`short floor ${i}`);
    start = performance.now();
    await bare.executeUpdate(bareInterruptUpdate, { args: [`short floor ${i}`] });
    at = await arrived;
    if (i >= warmup) floor.push(at - start);
    await waitFor(async () => (await bare.query(bareTurnsQuery)) === 2 * (i + 1), 5);
    await sleep(10);
  }
  await bare.terminate();
  await env.client.workflow.getHandle(sessionId).terminate();
  return { arbor, floor };
}
releaseHeld();
await server.teardown();
await model.fake.stop();

const arbor = percentiles(measured.arbor);
const floor = percentiles(measured.floor);
console.table({ 'Arbor session (interrupt)': arbor, 'bare workflow floor (cancel + new call)': floor });
const ratios = { p50: ratio(arbor.p50, floor.p50), p95: ratio(arbor.p95, floor.p95) };
console.log(`interrupt to the new turn's model request, ratio to the floor: p50 ${ratios.p50}x, p95 ${ratios.p95}x`);
const file = await writeResults(resultName('interrupt', args.server), {
  benchmark: "interrupt to the new turn's first model request",
  server: args.server,
  samples,
  warmup,
  load_average_at_start: loadAtStart,
  interrupt_to_model_request_ms: { arbor, floor },
  ratio_to_floor: ratios,
});
console.log(`written ${file}`);
