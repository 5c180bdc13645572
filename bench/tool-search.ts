/**
 * ToolSearch (issue 26, "Benchmark"): the model request of a session with 300 host tools when they are deferred behind
 * ToolSearch, against the same 300 sent in full, in the same run, on the same Temporal dev server.
 * - Request size: the bytes of each model request's HTTP body as the `openai` client sent it, and an estimate of its
 *   tokens (four bytes a token), for the same one-call turn in both sessions; and for the turn that finds a tool
 *   (ToolSearch, the tool, the answer: three requests) against the same call made with every spec sent.
 * - Turn latency: from `send()` to the model request (where the request is built), and to the session idle again
 *   (the client polling every 5 ms), for turns of one model call, alternating deferred / full.
 *   npx tsx bench/tool-search.ts [turns per variant, default 40]
 */
import { z } from 'zod';
import { createTestArbor, inProcessFetch, ScriptedModel, text, toolCall, type TestArbor } from '../src/testing.js';
import { defineHostTool } from '../src/tools.js';
import { benchArgs, loadAverage, quietRuntime, startDevServer, writeResults } from './harness.js';
import { ratio, summary } from './stats.js';

quietRuntime();
const turns = benchArgs().size ?? 40;
const warmup = 3;
const loadAtStart = loadAverage();

const catalogue = Array.from({ length: 300 }, (_, index) =>
  defineHostTool({
    name: index === 137 ? 'weather_forecast' : `generated_tool_${index}`,
    description: index === 137 ? 'Forecast the weather for a city.' : `Generated tool number ${index}: does one thing to a record.`,
    input: z.object({
      record_id: z.string().describe('The record to act on'),
      note: z.string().optional().describe('A note kept with the change'),
    }),
    run: () => 'done',
  }),
);

interface Seen {
  bytes: number;
  at: number;
}

/** A kit whose model is reached through a fetch that records each request body's size and arrival. */
async function kit(address: string, toolSearch: false | undefined) {
  const model = new ScriptedModel((request) => {
    if (request.lastUserMessage === 'find the weather' && request.toolResults.length === 0) {
      return toolSearch === false
        ? toolCall('weather_forecast', { record_id: 'Paris' })
        : toolCall('ToolSearch', { query: 'select:weather_forecast' });
    }
    if (request.lastUserMessage === 'find the weather' && request.toolResults.length === 1 && toolSearch !== false) {
      const [result] = request.toolResults as [{ matches?: string[] } | string];
      if (typeof result === 'object' && result.matches) return toolCall('weather_forecast', { record_id: 'Paris' });
    }
    return text('ok');
  });
  const seen: Seen[] = [];
  const answer = inProcessFetch(model);
  const arbor: TestArbor = await createTestArbor({
    model: {
      apiKey: 'sk-bench',
      baseURL: 'http://scripted-model.invalid/v1',
      defaultModel: 'bench-model',
      requestTimeoutMs: 30_000,
      fetch: (input, init) => {
        seen.push({ bytes: typeof init?.body === 'string' ? Buffer.byteLength(init.body) : 0, at: performance.now() });
        return answer(input, init);
      },
    },
    tools: catalogue,
    server: { address },
    ...(toolSearch === false ? { toolSearch: false } : {}),
  });
  return { arbor, seen };
}

const server = await startDevServer('in-memory');
const kits: TestArbor[] = [];
const stop = async () => {
  for (const arbor of kits) await arbor.teardown();
  await server.teardown();
};
try {
  await run(server.env.address);
} finally {
  await stop();
}

async function run(address: string) {
  const deferred = await kit(address, undefined);
  kits.push(deferred.arbor);
  const full = await kit(address, false);
  kits.push(full.arbor);

  async function session(variant: Awaited<ReturnType<typeof kit>>) {
    const handle = await variant.arbor.startSession({ instruction: 'hello', title: 'bench' });
    await handle.waitUntilIdle({ timeoutMs: 60_000 });
    return {
      async turn(message: string) {
        const before = variant.seen.length;
        const started = performance.now();
        const id = await handle.send(message);
        await handle.waitUntilIdle({ messageId: id, pollIntervalMs: 5, timeoutMs: 60_000 });
        const ended = performance.now();
        const requests = variant.seen.slice(before);
        return {
          turnMs: ended - started,
          toModelMs: (requests[0]?.at ?? ended) - started,
          requests: requests.map((request) => request.bytes),
        };
      },
    };
  }

  const sessions = { deferred: await session(deferred), full: await session(full) };
  const samples = {
    deferred: [] as Awaited<ReturnType<(typeof sessions)['full']['turn']>>[],
    full: [] as Awaited<ReturnType<(typeof sessions)['full']['turn']>>[],
  };
  for (let index = 0; index < warmup + turns; index++) {
    for (const name of ['deferred', 'full'] as const) {
      const result = await sessions[name].turn(`turn ${index}`);
      if (index >= warmup) samples[name].push(result);
    }
  }
  const finding = { deferred: await sessions.deferred.turn('find the weather'), full: await sessions.full.turn('find the weather') };

  const tokens = (bytes: number) => Math.round(bytes / 4);
  const firstRequest = (name: 'deferred' | 'full') => samples[name][0]!.requests[0]!;
  const requestBytes = { deferred: firstRequest('deferred'), full: firstRequest('full') };
  const latency = (name: 'deferred' | 'full') => ({
    to_model_call_ms: summary(samples[name].map((sample) => sample.toModelMs)),
    turn_ms: summary(samples[name].map((sample) => sample.turnMs)),
  });
  const results = {
    turns_per_variant: turns,
    host_tools: catalogue.length,
    load_average_at_start: loadAtStart,
    one_call_turn_request: {
      deferred: { bytes: requestBytes.deferred, estimated_tokens: tokens(requestBytes.deferred) },
      full: { bytes: requestBytes.full, estimated_tokens: tokens(requestBytes.full) },
      deferred_over_full: ratio(requestBytes.deferred, requestBytes.full),
    },
    finding_a_tool_turn: {
      deferred: { requests: finding.deferred.requests, total_bytes: finding.deferred.requests.reduce((sum, bytes) => sum + bytes, 0) },
      full: { requests: finding.full.requests, total_bytes: finding.full.requests.reduce((sum, bytes) => sum + bytes, 0) },
    },
    latency: { deferred: latency('deferred'), full: latency('full') },
  };
  console.log(JSON.stringify(results, null, 2));
  console.log(
    `request of a one-call turn: deferred ${requestBytes.deferred} bytes (~${tokens(requestBytes.deferred)} tokens), ` +
      `full ${requestBytes.full} bytes (~${tokens(requestBytes.full)} tokens): ${ratio(requestBytes.deferred, requestBytes.full)}x`,
  );
  console.log(
    `turn p50: deferred ${results.latency.deferred.turn_ms.p50} ms, full ${results.latency.full.turn_ms.p50} ms ` +
      `(${ratio(results.latency.deferred.turn_ms.p50, results.latency.full.turn_ms.p50)}x); to the model call p50: ` +
      `deferred ${results.latency.deferred.to_model_call_ms.p50} ms, full ${results.latency.full.to_model_call_ms.p50} ms`,
  );
  console.log(`written to ${await writeResults('tool-search', results)}`);
}
