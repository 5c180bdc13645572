/**
 * S1 of issue 27: streamed answers. (1) Time to first delta: from the fake model writing its first chunk (its own time
 * to first byte) to `session.stream()` yielding the first text delta at the client, against a floor doing the same
 * work with no Temporal in between: the openai client in process reading the same stream's first chunk. (2) History
 * events and bytes per turn of a reply streamed in 40 chunks over about a second, against the same reply unstreamed
 * (a worker with `stream: false`).
 *   npx tsx bench/streaming.ts [samples]
 */
import proto from '@temporalio/proto';
import { SessionHandle } from '../src/client/session-handle.js';
import { sessionWorkflowType } from '../src/shared/session.js';
import { streamBatchIntervalMs } from '../src/shared/stream.js';
import { streamQuery } from '../src/shared/messages.js';
import type { RecordedRequest } from '../test/support/fake-openai.js';
import {
  benchArgs,
  createArborBenchWorker,
  loadAverage,
  quietRuntime,
  startDevServer,
  startFakeModel,
  waitFor,
  writeResults,
} from './harness.js';
import { percentiles, round, verdict } from './stats.js';

quietRuntime();
const args = benchArgs();
const samples = args.size ?? 30;
const warmup = 3;
const loadAtStart = loadAverage();
const chunks = Array.from({ length: 40 }, (_, index) => `word${index} `);
const chunkDelayMs = 25;

let lastRequest: RecordedRequest | undefined;
const model = await startFakeModel((request) => {
  lastRequest = request;
  return { content: chunks.join(''), chunks, chunkDelayMs };
});
model.fake.streams = true;
const server = await startDevServer(args.server);
const { env } = server;
const streaming = await createArborBenchWorker(env, model, 'bench-stream');
const unstreamed = await createArborBenchWorker(env, { ...model, settings: { ...model.settings, stream: false } }, 'bench-unstreamed');

const measured = await streaming.runUntil(() => unstreamed.runUntil(measure));
async function measure() {
  // The floor: the provider's first chunk to the client's, in process.
  const floor: number[] = [];
  for (let i = 0; i < samples + warmup; i++) {
    const stream = await model.openai.chat.completions.create({
      model: 'bench',
      messages: [{ role: 'user', content: `floor ${i}` }],
      stream: true,
    });
    let firstAt: number | undefined;
    for await (const chunk of stream) if (firstAt === undefined && chunk.choices[0]?.delta?.content) firstAt = Date.now();
    if (i >= warmup) floor.push(firstAt! - lastRequest!.firstChunkAt!);
  }

  const firstDelta: number[] = [];
  // Where a first delta's time goes, by the server's event times (one clock: one machine): the provider's first chunk
  // to the recorded streamDeltas signal (the activity's send), to the end of the workflow task that took it, to the
  // client's yield (long-poll wake, then the stream query and its query task). A reader that yields the recorded batch
  // from its long poll (early-stream-items.ts) does not wait for that task: signalToClient is its own leg.
  const legs = { toSignal: [] as number[], toTaskDone: [] as number[], toClient: [] as number[], signalToClient: [] as number[] };
  const perTurn: Record<'streamed' | 'unstreamed', { events: number[]; bytes: number[] }> = {
    streamed: { events: [], bytes: [] },
    unstreamed: { events: [], bytes: [] },
  };
  for (const [kind, taskQueue] of [
    ['streamed', 'bench-stream'],
    ['unstreamed', 'bench-unstreamed'],
  ] as const) {
    const sessionId = `bench-stream-${kind}-${Date.now()}`;
    await env.client.workflow.start(sessionWorkflowType, { taskQueue, workflowId: sessionId, args: [{ title: 'bench' }] });
    const session = new SessionHandle(sessionId, env.client);
    const turns = kind === 'streamed' ? samples + warmup : 10;
    let before = await historySize(sessionId);
    for (let i = 0; i < turns; i++) {
      const stop = new AbortController();
      const from = (await env.client.workflow.getHandle(sessionId).query(streamQuery, { after: Number.MAX_SAFE_INTEGER })).last_pos;
      const reading = (async () => {
        let firstAt: number | undefined;
        for await (const item of session.stream({ from, signal: stop.signal })) {
          if (item.type === 'text_delta' && item.turn === i + 1) firstAt ??= Date.now();
          if (item.type === 'turn_ended' && item.turn === i + 1) return firstAt;
        }
        return firstAt;
      })();
      await session.send(`turn ${i}`);
      const firstAt = await reading;
      stop.abort();
      await waitFor(async () => {
        const snapshot = await session.snapshot();
        return snapshot.turn === i + 1 && snapshot.status === 'idle';
      }, 5);
      if (kind === 'streamed' && i >= warmup) {
        const chunkAt = lastRequest!.firstChunkAt!;
        firstDelta.push(firstAt! - chunkAt);
        const path = await firstDeltaPath(sessionId, before.events);
        if (path) {
          legs.toSignal.push(path.signalAt - chunkAt);
          legs.toTaskDone.push(path.taskDoneAt - path.signalAt);
          legs.toClient.push(firstAt! - path.taskDoneAt);
          legs.signalToClient.push(firstAt! - path.signalAt);
        }
      }
      const after = await historySize(sessionId);
      perTurn[kind].events.push(after.events - before.events);
      perTurn[kind].bytes.push(after.bytes - before.bytes);
      before = after;
    }
    await env.client.workflow.getHandle(sessionId).terminate();
  }
  return { floor, firstDelta, perTurn, legs };
}

/** The server's times of a turn's first streamDeltas signal and of the end of the workflow task that took it. */
async function firstDeltaPath(workflowId: string, afterEvents: number) {
  const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const later = events.filter((event) => Number(event.eventId) > afterEvents);
  const signal = later.findIndex((event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'streamDeltas');
  if (signal === -1) return undefined;
  const taskDone = later.slice(signal).find((event) => event.workflowTaskCompletedEventAttributes);
  const time = (event: (typeof events)[number] | undefined) =>
    event?.eventTime ? Number(event.eventTime.seconds) * 1_000 + Math.round((event.eventTime.nanos ?? 0) / 1e6) : NaN;
  return { signalAt: time(later[signal]), taskDoneAt: time(taskDone) };
}

async function historySize(workflowId: string) {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  return { events: history.events?.length ?? 0, bytes: proto.temporal.api.history.v1.History.encode(history).finish().length };
}

await server.teardown();
await model.fake.stop();

const arbor = percentiles(measured.firstDelta);
const floor = percentiles(measured.floor);
const mean = (values: number[]) => round(values.reduce((sum, value) => sum + value, 0) / values.length, 1);
const turns = {
  streamed: { events: mean(measured.perTurn.streamed.events), bytes: mean(measured.perTurn.streamed.bytes) },
  unstreamed: { events: mean(measured.perTurn.unstreamed.events), bytes: mean(measured.perTurn.unstreamed.bytes) },
};
console.table({
  'first delta at the client, Arbor (ms after the provider’s first chunk)': arbor,
  'floor: openai client in process': floor,
});
const legs = {
  'provider first chunk -> streamDeltas signal recorded': percentiles(measured.legs.toSignal),
  'signal recorded -> its workflow task completed': percentiles(measured.legs.toTaskDone),
  'workflow task completed -> client yields the delta': percentiles(measured.legs.toClient),
  'signal recorded -> client yields the delta': percentiles(measured.legs.signalToClient),
};
console.table(legs);
console.log(
  `S1 time to first delta minus the provider's: p50 ${arbor.p50} ms, p95 ${arbor.p95} ms (goal at most 50 ms p50: ${verdict(arbor.p50 <= 50)})`,
);
console.table(turns);
console.log(
  `S1 a turn streamed in ${chunks.length} chunks over ~${chunks.length * chunkDelayMs} ms (batches every ${streamBatchIntervalMs} ms): ` +
    `${turns.streamed.events} events and ${turns.streamed.bytes} bytes, against ${turns.unstreamed.events} and ${turns.unstreamed.bytes} unstreamed`,
);
const file = await writeResults('streaming', {
  benchmark: 'S1 streamed answers',
  server: args.server,
  samples,
  warmup,
  load_average_at_start: loadAtStart,
  chunks: chunks.length,
  chunk_delay_ms: chunkDelayMs,
  batch_interval_ms: streamBatchIntervalMs,
  first_delta_after_provider_first_chunk_ms: { arbor, floor },
  first_delta_legs_ms: legs,
  per_turn: turns,
});
console.log(`written ${file}`);
