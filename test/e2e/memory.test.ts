import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devServerWorkers } from '../support/dev-server-workers.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';
import { runCli } from '../support/processes.js';

const stores = [
  { store: 'the workflow store', postgres: false },
  { store: 'PostgreSQL (ARBOR_MEMORY_STORE=postgres for the worker and the CLI)', postgres: true },
];

describe.each(stores)(
  'memories across a worker restart, from the CLI (dev server, worker process, fake model), in $store',
  ({ postgres }) => {
    // Filled before the worker starts (hooks run in order): the worker process and the CLI read the same store.
    const storeEnv: NodeJS.ProcessEnv = {};
    let database: TestPostgres | undefined;
    if (postgres) {
      beforeAll(async () => {
        database = await startPostgres();
        Object.assign(storeEnv, { ARBOR_MEMORY_STORE: 'postgres', ARBOR_MEMORY_DATABASE_URL: database.connectionString });
      }, 180_000);
      afterAll(async () => {
        await database?.stop();
      });
    }
    const servers = devServerWorkers('sk-memory-e2e', { workerEnv: storeEnv });
    const { model } = servers;
    let env: NodeJS.ProcessEnv;
    beforeAll(() => {
      env = { ...servers.cliEnv, ...storeEnv };
    });

    it('keeps an owner’s memories when the worker is killed, and arbor memory lists, searches and deletes them', async () => {
      const owner = `carol-${randomUUID().slice(0, 8)}`;
      const instruction = `remember things ${randomUUID()}`;
      model.script(
        instruction,
        {
          toolCalls: [
            {
              name: 'saveMemory',
              arguments: JSON.stringify({ content: 'Invoices go out on the first Monday of the month.', tags: ['billing'] }),
            },
            { name: 'saveMemory', arguments: JSON.stringify({ content: 'Carol prefers short answers.' }) },
          ],
        },
        { content: 'Remembered.' },
      );
      const started = await runCli(['start', instruction, '--owner', owner, '--json'], env);
      expect(started.code, started.stderr).toBe(0);
      const session = servers.client.session(JSON.parse(started.stdout).session_id);
      expect((await session.waitUntilIdle({ timeoutMs: 60_000 })).owner).toBe(owner);

      await servers.restartWorker();

      const searched = await runCli(['memory', 'search', 'when do invoices go out', '--owner', owner, '--json'], env);
      expect(searched.code, searched.stderr).toBe(0);
      const { results } = JSON.parse(searched.stdout);
      expect(results[0]).toMatchObject({
        content: 'Invoices go out on the first Monday of the month.',
        tags: ['billing'],
        session_id: session.id,
      });

      const listed = await runCli(['memory', 'list', '--owner', owner], env);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toMatch(/mem-\d+ .*\n {2}Carol prefers short answers\./);

      if (database) {
        // In the database, not in a memory workflow.
        expect(await database.sql(`SELECT count(*) FROM arbor_memories WHERE owner = '${owner}'`)).toBe('2');
      }

      const id = results[0].memory_id as string;
      expect((await runCli(['memory', 'delete', id, '--owner', owner], env)).stdout).toContain(`deleted ${id}`);
      const again = await runCli(['memory', 'delete', id, '--owner', owner], env);
      expect(again.code).toBe(2);
      expect(again.stderr).toContain(`No memory ${id}`);

      const other = await runCli(['memory', 'list', '--owner', `dave-${randomUUID().slice(0, 8)}`, '--json'], env);
      expect(JSON.parse(other.stdout)).toMatchObject({ total: 0, memories: [] });
      const badOwner = await runCli(['memory', 'list', '--owner', 'no spaces allowed'], env);
      expect(badOwner.code).toBe(2);
      expect(badOwner.stderr).toContain('--owner "no spaces allowed"');
    });
  },
);
