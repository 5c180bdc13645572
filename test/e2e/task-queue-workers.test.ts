import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArborClient } from '../../src/client.js';
import { workersPolling } from '../../src/temporal/task-queue-workers.js';
import { devServerSettings } from '../support/connection.js';
import { killHard, startWorkerProcess, workerProcessEnv } from '../support/processes.js';
import { waitUntil } from '../support/wait.js';

describe('the workers polling a task queue (dev server, three worker processes of two pollers each)', () => {
  const settings = devServerSettings();
  let workers: ChildProcess[] = [];
  let arbor: ArborClient;

  beforeAll(async () => {
    // Two long polls each: a worker then sits on two of the queue's four partitions, often not on the root one.
    const env = { ...workerProcessEnv(settings, 'http://127.0.0.1:9/v1', 'sk-pollers'), ARBOR_TEST_WORKER_POLLS: '2' };
    workers = await Promise.all([1, 2, 3].map(() => startWorkerProcess(env)));
    arbor = await ArborClient.fromSettings(settings);
  }, 180_000);

  afterAll(async () => {
    await arbor?.close();
    await Promise.all(workers.map(killHard));
  });

  it('lists every worker, whichever partitions its polls landed on, each once', async () => {
    const expected = workers.map((worker) => String(worker.pid)).sort();
    let seen: string[] = [];
    await waitUntil(async () => {
      seen = (await workersPolling(arbor.temporal, settings.taskQueue)).map((worker) => worker.identity.split('@')[0]!).sort();
      return seen.length >= expected.length;
    }, 20_000).catch(() => undefined);
    expect(seen).toEqual(expected);
  });
});
