/**
 * B6 of issue 9: worker memory per idle cached session. A worker process (bench/idle-memory-worker.ts) runs 1,000
 * root sessions through one turn each (one model call) and keeps them idle in its sticky cache (maxCachedWorkflows
 * above 1,000); its memory after a full GC, before and after, divided by 1,000. The floor: the same with bare
 * workflows that had one signal and one model-call activity. Two ways:
 *   - threads: the worker as deployed (workflows in a worker thread): the process's RSS per session;
 *   - main-thread: the worker's debug mode runs the same reusable V8 context in the main thread, so the V8 heap
 *     used after a full GC counts exactly what each cached workflow keeps (300 sessions: the count is exact); also
 *     for sessions whose turn called two tools (todoWrite, planWrite), which have built those tools' schemas.
 * Each measurement runs in a fresh process against one dev server started here.
 *   npx tsx bench/idle-memory.ts [sessions, default 1000] [--sqlite]
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { benchArgs, loadAverage, quietRuntime, resultName, startDevServer, writeResults } from './harness.js';
import { round, verdict } from './stats.js';

quietRuntime();
const args = benchArgs();
const count = args.size ?? 1000;
// The heap measurement is exact, so fewer sessions do; it keeps the whole run within a few minutes.
const heapCount = Math.min(count, 300);
const targetBytes = 0.5 * 1024 * 1024;
const loadAtStart = loadAverage();

type Kind = 'arbor' | 'arbor-tools' | 'bare';

interface Measurement {
  kind: Kind;
  mode: 'threads' | 'main-thread';
  count: number;
  cached_workflows: number;
  seconds_to_start: number;
  bytes_per_session: { rss: number; heap_used: number; external: number };
}

function measure(address: string, kind: Kind, mode: 'threads' | 'main-thread', count: number): Promise<Measurement> {
  const script = fileURLToPath(new URL('./idle-memory-worker.ts', import.meta.url));
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', script, address, kind, String(count), mode], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      const line = out.trim().split('\n').at(-1);
      if (code !== 0 || !line) reject(new Error(`${kind} ${mode} measurement exited with ${code}: ${out}`));
      else resolve(JSON.parse(line) as Measurement);
    });
  });
}

const server = await startDevServer(args.server);
const measurements: Measurement[] = [];
try {
  for (const mode of ['threads', 'main-thread'] as const) {
    // In the exact heap measurement also sessions whose turn called two tools, which have built those tools' schemas.
    const kinds: Kind[] = mode === 'threads' ? ['arbor', 'bare'] : ['arbor', 'arbor-tools', 'bare'];
    for (const kind of kinds) {
      const result = await measure(server.env.address, kind, mode, mode === 'threads' ? count : heapCount);
      console.log(
        `${kind} (${mode}): ${JSON.stringify(result.bytes_per_session)} bytes per session, ${result.cached_workflows} cached, ${result.seconds_to_start} s to run ${result.count}`,
      );
      measurements.push(result);
    }
  }
} finally {
  await server.teardown();
}

const mb = (bytes: number) => round(bytes / 1024 / 1024, 3);
const find = (kind: string, mode: string) => measurements.find((m) => m.kind === kind && m.mode === mode)!;
const rows = {
  'Arbor, RSS (threads)': mb(find('arbor', 'threads').bytes_per_session.rss),
  'floor, RSS (threads)': mb(find('bare', 'threads').bytes_per_session.rss),
  'Arbor, V8 heap (main thread)': mb(find('arbor', 'main-thread').bytes_per_session.heap_used),
  'Arbor after a turn with two tool calls, V8 heap (main thread)': mb(find('arbor-tools', 'main-thread').bytes_per_session.heap_used),
  'floor, V8 heap (main thread)': mb(find('bare', 'main-thread').bytes_per_session.heap_used),
  'Arbor, RSS (main thread)': mb(find('arbor', 'main-thread').bytes_per_session.rss),
  'floor, RSS (main thread)': mb(find('bare', 'main-thread').bytes_per_session.rss),
};
console.table(Object.fromEntries(Object.entries(rows).map(([name, value]) => [name, { 'MB per idle session': value }])));
const arborRss = find('arbor', 'threads').bytes_per_session.rss;
const arborHeap = find('arbor', 'main-thread').bytes_per_session.heap_used;
console.log(
  `B6 ${count} idle cached sessions (heap: ${heapCount}): ${mb(arborRss)} MB RSS each as deployed (target 0.5 MB: ${verdict(arborRss <= targetBytes)}), ` +
    `${mb(arborHeap)} MB of V8 heap each (floor ${mb(find('bare', 'main-thread').bytes_per_session.heap_used)} MB)`,
);
const file = await writeResults(resultName('idle-memory', args.server), {
  benchmark: 'B6 worker memory per idle cached session',
  server: args.server,
  sessions: count,
  sessions_heap_measurement: heapCount,
  load_average_at_start: loadAtStart,
  mb_per_session: rows,
  measurements,
});
console.log(`written ${file}`);
