/**
 * Measures both memory stores through the SDK's MemoryHandle (what the memory activities call): the workflow store
 * (updates and queries to the owner's workflow on a local dev server) and the PostgreSQL store (a PostgreSQL of the
 * system's packages, started here on a Unix socket), at 250 memories per owner (the workflow store's most) and, for
 * PostgreSQL only, at 100,000 (bulk-loaded with multi-row inserts). Save, search and list p50/p95/p99, against the
 * same search in process with no Temporal and no database (the zero line), and the size of the state a
 * continue-as-new carries.
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
import { PostgresMemoryStore } from '../src/client/access/postgres-memory/store.js';
import { startPostgres } from '../test/support/postgres.js';
import { loadMemories, syntheticMemories } from './memory-store-load.js';

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

const postgres = await startPostgres();
const database = new PostgresMemoryStore({ databaseUrl: postgres.connectionString });
const onPostgres = await (async () => {
  try {
    await database.ready();
    // 250: the same memories, searches and lists as the workflow store above.
    const small = new MemoryHandle('bench-250', env.client, taskQueue, database);
    const saves250: number[] = [];
    for (let i = 0; i < maxMemoriesPerOwner; i++)
      await time(saves250, () => small.save(sentence(i, 400), { tags: [words[i % words.length]!] }));
    const searches250: number[] = [];
    for (let i = 0; i < 200; i++)
      await time(searches250, () => small.search(`${words[i % words.length]} ${words[(i * 3) % words.length]}`));
    const lists250: number[] = [];
    for (let i = 0; i < 100; i++) await time(lists250, () => small.list({ limit: 20 }));

    // 100,000: varied text (a 20,000-word vocabulary, Zipf-distributed), loaded in bulk, then the same operations.
    const large = new MemoryHandle('bench-100k', env.client, taskQueue, database);
    const corpus = syntheticMemories(100_000);
    const loadStart = performance.now();
    await loadMemories(postgres.connectionString, 'bench-100k', corpus.memories);
    const loadSeconds = (performance.now() - loadStart) / 1000;
    await postgres.sql('ANALYZE arbor_memories');
    const saves100k: number[] = [];
    for (let i = 0; i < 250; i++) await time(saves100k, () => large.save(corpus.text(1_000_000 + i, 60), { tags: [corpus.word(i)] }));
    const searches100k: number[] = [];
    const matched: number[] = [];
    for (let i = 0; i < 200; i++) {
      const found = await time(searches100k, () => large.search(corpus.query(i)));
      matched.push(found.length);
    }
    const commonSearches: number[] = [];
    for (let i = 0; i < 50; i++) await time(commonSearches, () => large.search(`${corpus.word(0)} ${corpus.word(1)}`));
    const lists100k: number[] = [];
    for (let i = 0; i < 100; i++) await time(lists100k, () => large.list({ limit: 20 }));
    const taggedLists: number[] = [];
    for (let i = 0; i < 100; i++) await time(taggedLists, () => large.list({ tag: corpus.word(i % 50), limit: 20 }));
    const sizes = await postgres.sql(
      "SELECT pg_size_pretty(pg_total_relation_size('arbor_memories')) || ' total, ' || pg_size_pretty(pg_relation_size('arbor_memories_search')) || ' search index'",
    );
    return {
      save_250_ms: percentiles(saves250),
      search_250_ms: percentiles(searches250),
      list_250_ms: percentiles(lists250),
      bulk_load_100k_seconds: Math.round(loadSeconds * 10) / 10,
      save_100k_ms: percentiles(saves100k),
      search_100k_ms: percentiles(searches100k),
      search_100k_results_mean: matched.reduce((sum, n) => sum + n, 0) / matched.length,
      search_100k_two_most_common_words_ms: percentiles(commonSearches),
      list_100k_ms: percentiles(lists100k),
      list_100k_by_tag_ms: percentiles(taggedLists),
      table_size_100k: sizes,
    };
  } finally {
    await database.close();
    await postgres.stop();
  }
})();

console.table({
  'workflow store, 250: save': results.write_ms,
  'workflow store, 250: search': results.search_ms,
  'workflow store, 250: list': results.list_ms,
  'PostgreSQL, 250: save': onPostgres.save_250_ms,
  'PostgreSQL, 250: search': onPostgres.search_250_ms,
  'PostgreSQL, 250: list': onPostgres.list_250_ms,
  'PostgreSQL, 100,000: save': onPostgres.save_100k_ms,
  'PostgreSQL, 100,000: search': onPostgres.search_100k_ms,
  'PostgreSQL, 100,000: search, two most common words': onPostgres.search_100k_two_most_common_words_ms,
  'PostgreSQL, 100,000: list': onPostgres.list_100k_ms,
  'PostgreSQL, 100,000: list by tag': onPostgres.list_100k_by_tag_ms,
  'search in process, 250 (no Temporal, no database)': results.search_in_process_ms,
});
console.log(
  `PostgreSQL at 100,000: bulk load ${onPostgres.bulk_load_100k_seconds} s, ${onPostgres.search_100k_results_mean} results per search on average, table ${onPostgres.table_size_100k}`,
);
console.log('The workflow store cannot hold 100,000 memories per owner: its whole state travels through continue-as-new (at most 250).');
console.log(
  `state carried by continue-as-new at the limit (${maxMemoriesPerOwner} × ${maxMemoryLength} characters): ${results.carried_state_bytes_at_limit} bytes`,
);
console.log(`history events of the store after ${maxMemoriesPerOwner + 2} writes: ${results.history_events_after_writes}`);
await mkdir(new URL('./results/', import.meta.url), { recursive: true });
await writeFile(
  new URL('./results/memory-store.json', import.meta.url),
  `${JSON.stringify({ date: new Date().toISOString(), ...results, postgres: onPostgres }, null, 2)}\n`,
);
