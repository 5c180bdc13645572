/**
 * Queries that reach a session at once: five sent side by side right after a message (while its turn's workflow tasks
 * run), against the same five sent one after another (the floor), and five side by side while the session idles.
 * Prints how many were answered more than a second late, or not within 5 s. Found while tracing the web console's
 * slow samples (bench/RESULTS.md, Web console): side by side during a turn, most came 1.4 to 2 s late.
 *   npx tsx bench/concurrent-queries.ts [rounds]
 */
import { ArborClient } from '../src/client/arbor-client.js';
import { eventsQuery, snapshotQuery, streamQuery } from '../src/shared/messages.js';
import { benchArgs, createArborBenchWorker, loadAverage, startDevServer, startFakeModel, waitFor } from './harness.js';

const rounds = benchArgs().size ?? 20;
const width = 5;
const model = await startFakeModel(() => ({ content: 'noted' }));
const server = await startDevServer('in-memory');
const worker = await createArborBenchWorker(server.env, model, 'bench-concurrent-queries');
const client = new ArborClient(server.env.client, 'bench-concurrent-queries');
const loadAtStart = loadAverage();

type Way = 'side by side during a turn' | 'one after another during a turn' | 'side by side while idle';

async function round(way: Way, index: number): Promise<number[]> {
  const session = await client.startSession({ instruction: 'Answer', title: `queries ${index}` });
  const idle = () =>
    waitFor(
      () =>
        session.snapshot().then(
          (snapshot) => snapshot.status === 'idle',
          () => false,
        ),
      20,
    );
  await idle();
  await session.send('again');
  if (way === 'side by side while idle') await idle();
  const handle = server.env.client.workflow.getHandle(session.id);
  const queries: (() => Promise<unknown>)[] = [
    () => handle.query(snapshotQuery),
    () => handle.query(eventsQuery, { after: 0 }),
    () => handle.query(streamQuery, { after: 0 }),
  ];
  const timed = async (slot: number) => {
    const started = Date.now();
    return server.env.client.withDeadline(Date.now() + 5_000, queries[slot % queries.length]!).then(
      () => Date.now() - started,
      () => Number.POSITIVE_INFINITY,
    );
  };
  if (way === 'one after another during a turn') {
    const times: number[] = [];
    for (let slot = 0; slot < width; slot += 1) times.push(await timed(slot));
    return times;
  }
  return Promise.all(Array.from({ length: width }, (_, slot) => timed(slot)));
}

const ways: Way[] = ['side by side during a turn', 'one after another during a turn', 'side by side while idle'];
const results = await worker.runUntil(async () => {
  const late = Object.fromEntries(ways.map((way) => [way, { late: 0, unanswered: 0, queries: 0 }]));
  for (let index = 0; index < rounds; index += 1) {
    for (const way of ways) {
      const times = await round(way, index);
      late[way]!.queries += times.length;
      late[way]!.late += times.filter((time) => time > 1_000 && Number.isFinite(time)).length;
      late[way]!.unanswered += times.filter((time) => !Number.isFinite(time)).length;
    }
  }
  return late;
});
console.table(results);
console.log(`load average at start ${loadAtStart.join(' ')}, at the end ${loadAverage().join(' ')}`);
await server.teardown();
await model.fake.stop();
