import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { devServerWorkers } from '../support/dev-server-workers.js';
import { runCli } from '../support/processes.js';

describe('memories across a worker restart, from the CLI (dev server, worker process, fake model)', () => {
  const servers = devServerWorkers('sk-memory-e2e');
  const { model } = servers;
  const env = servers.cliEnv;

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
});
