/**
 * Measures the per-owner memory store: write (update) and search (query) latency against a local dev server, the
 * same search in process with no Temporal (the zero line), and the size of the state a continue-as-new carries.
 *   npx tsx bench/memory-store.ts
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Runtime, DefaultLogger, Worker } from '@temporalio/worker';
import { createActivities } from '../src/activities/index.js';
import { MemoryHandle } from '../src/client/memory-handle.js';
import { locateBinaryPath } from '../src/temporal/binaries.js';
import { maxMemoriesPerOwner, maxMemoryLength } from '../src/shared/tools/memory.js';
import { MemoryStore } from '../src/workflows/memory-store.js';
import { workflowSourceWorkerOptions } from '../src/worker/workflow-code.js';
import { percentiles } from './stats.js';

Runtime.install({ logger: new DefaultLogger('WARN') });

const words =
  'deploy region invoice billing coffee tea llama garden river python rust temporal worker session memory search ranking owner team friday release'.split(
    ' ',
  );
const sentence = (i: number, length: number) => {
  const out: string[] = [];
  for (let k = 0; out.join(' ').length < length; k++) out.push(words[(i * 7 + k * 13) % words.length]!);
  return out.join(' ').slice(0, length);
};

async function time<T>(samples: number[], work: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const result = await work();
  samples.push(performance.now() - start);
  return result;
}

const env = await TestWorkflowEnvironment.createLocal({
  server: { executable: { type: 'existing-path', path: await locateBinaryPath('cli') } },
});
const taskQueue = 'bench-memory';
const worker = await Worker.create({
  connection: env.nativeConnection,
  taskQueue,
  ...workflowSourceWorkerOptions(),
  activities: createActivities({ client: env.client, model: { defaultModel: 'demo', requestTimeoutMs: 5_000 }, search: { engines: [] } }),
});

const results = await worker.runUntil(async () => {
  const memories = new MemoryHandle('bench', env.client, taskQueue);
  await memories.save('warm-up');
  await memories.delete('mem-1');
  const writes: number[] = [];
  for (let i = 0; i < maxMemoriesPerOwner; i++)
    await time(writes, () => memories.save(sentence(i, 400), { tags: [words[i % words.length]!] }));
  const searches: number[] = [];
  for (let i = 0; i < 200; i++) await time(searches, () => memories.search(`${words[i % words.length]} ${words[(i * 3) % words.length]}`));
  const lists: number[] = [];
  for (let i = 0; i < 100; i++) await time(lists, () => memories.list({ limit: 20 }));

  const local = new MemoryStore(() => new Date());
  for (let i = 0; i < maxMemoriesPerOwner; i++)
    local.write({ op: 'save', session_id: 's', args: { content: sentence(i, 400), tags: [words[i % words.length]!] } });
  const inProcess: number[] = [];
  local.read({ op: 'search', args: { query: 'warm', limit: 5 } });
  for (let i = 0; i < 200; i++)
    await time(inProcess, async () =>
      local.read({ op: 'search', args: { query: `${words[i % words.length]} ${words[(i * 3) % words.length]}`, limit: 5 } }),
    );

  const full = new MemoryStore(() => new Date());
  for (let i = 0; i < maxMemoriesPerOwner; i++)
    full.write({
      op: 'save',
      session_id: 'a1b2c3d4-0000-0000-0000-000000000000',
      args: { content: 'x'.repeat(maxMemoryLength), tags: ['t1', 't2', 't3'] },
    });
  const history = await env.client.workflow.getHandle('arbor-memory-bench').fetchHistory();
  return {
    write_ms: percentiles(writes),
    search_ms: percentiles(searches),
    list_ms: percentiles(lists),
    search_in_process_ms: percentiles(inProcess),
    carried_state_bytes_at_limit: JSON.stringify(full.carry()).length,
    history_events_after_writes: history.events?.length ?? 0,
  };
});
await env.teardown();

console.table({
  write: results.write_ms,
  search: results.search_ms,
  list: results.list_ms,
  'search, in process (no Temporal)': results.search_in_process_ms,
});
console.log(
  `state carried by continue-as-new at the limit (${maxMemoriesPerOwner} × ${maxMemoryLength} characters): ${results.carried_state_bytes_at_limit} bytes`,
);
console.log(`history events of the store after ${maxMemoriesPerOwner + 2} writes: ${results.history_events_after_writes}`);
await mkdir(new URL('./results/', import.meta.url), { recursive: true });
await writeFile(
  new URL('./results/memory-store.json', import.meta.url),
  `${JSON.stringify({ date: new Date().toISOString(), ...results }, null, 2)}\n`,
);
