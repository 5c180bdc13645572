import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devServerSettings } from '../support/connection.js';
import { FakeOpenAI } from '../support/fake-openai.js';
import { killHard, runCli, startWorkerProcess, workerProcessEnv } from '../support/processes.js';
import { waitUntil } from '../support/wait.js';
import { ArborClient, type SessionSummary } from '../../src/client.js';
import { titleKey } from '../../src/shared/search-attributes.js';

describe('arbor list', () => {
  const fake = new FakeOpenAI();
  const settings = devServerSettings();
  let worker: ChildProcess;
  let env: NodeJS.ProcessEnv;
  const owner = `lister-${randomUUID().slice(0, 8)}`;
  const ids: { first: string; second: string; other: string } = { first: '', second: '', other: '' };

  async function start(title: string, sessionOwner = owner): Promise<string> {
    const started = await runCli(['start', `Work on ${title}.`, '--title', title, '--owner', sessionOwner, '--json'], env);
    expect(started.code, started.stderr).toBe(0);
    return (JSON.parse(started.stdout) as { session_id: string }).session_id;
  }

  async function list(...args: string[]): Promise<SessionSummary[]> {
    const listed = await runCli(['list', ...args, '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    return (JSON.parse(listed.stdout) as { sessions: SessionSummary[] }).sessions;
  }

  beforeAll(async () => {
    await fake.start();
    fake.fallback = () => ({ content: 'done' });
    env = { TEMPORAL_ADDRESS: settings.address, ARBOR_TASK_QUEUE: settings.taskQueue };
    worker = await startWorkerProcess(workerProcessEnv(settings, fake.baseURL, 'sk-list'));
    ids.first = await start('Alpha report');
    ids.second = await start('Beta report');
    ids.other = await start('Alpha report', `${owner}-else`);
    const stopped = await runCli(['stop', ids.first], env);
    expect(stopped.code, stopped.stderr).toBe(0);
    // Visibility indexes a moment after the fact.
    await waitUntil(async () => (await list('--owner', owner)).some((session) => session.status === 'stopped'), 30_000);
  }, 120_000);

  afterAll(async () => {
    if (worker) await killHard(worker);
    await fake.stop();
  });

  it("lists an owner's root sessions, newest activity first, with id, title, status, owner and last activity", async () => {
    const sessions = await list('--owner', owner);
    expect(sessions.map((session) => session.session_id)).toEqual([ids.first, ids.second]);
    expect(sessions[0]).toMatchObject({
      session_id: ids.first,
      title: 'Alpha report',
      status: 'stopped',
      owner,
      closed_at: expect.any(String),
    });
    expect(sessions[1]).toMatchObject({ session_id: ids.second, title: 'Beta report', owner, closed_at: null });
    expect(['idle', 'running']).toContain(sessions[1]!.status);
    expect(Date.parse(sessions[0]!.last_activity_at)).toBeGreaterThanOrEqual(Date.parse(sessions[1]!.last_activity_at));
  });

  it('filters by status and by a part of the title in any case', async () => {
    expect((await list('--owner', owner, '--status', 'stopped')).map((session) => session.session_id)).toEqual([ids.first]);
    expect((await list('--owner', owner, '--title', 'beta')).map((session) => session.session_id)).toEqual([ids.second]);
    const alphas = (await list('--title', 'ALPHA REPORT', '--limit', '200')).map((session) => session.session_id);
    expect(alphas).toEqual(expect.arrayContaining([ids.first, ids.other]));
    expect(alphas).not.toContain(ids.second);
  });

  it('lists a title with colons, quotes and backslashes as written, which visibility holds in a form PostgreSQL can index', async () => {
    const title = `'Research: A vs B' in C:\\temp\\`;
    const colonOwner = `${owner}-colons`;
    const id = await start(title, colonOwner);
    await waitUntil(async () => (await list('--owner', colonOwner)).length === 1, 30_000);
    expect((await list('--owner', colonOwner))[0]).toMatchObject({ session_id: id, title });
    const arbor = await ArborClient.fromSettings(settings);
    try {
      const written = (await arbor.temporal.workflow.getHandle(id).describe()).typedSearchAttributes.get(titleKey);
      expect(written).toBe('’Research꞉ A vs B’ in C꞉⧵temp⧵');
    } finally {
      await arbor.close();
    }
  });

  it('prints a table under the alias sessions', async () => {
    const listed = await runCli(['sessions', '--owner', owner], env);
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^SESSION\s+STATUS\s+OWNER\s+LAST ACTIVITY\s+TITLE$/);
    expect(lines[1]).toMatch(
      new RegExp(`^${ids.first}\\s+stopped\\s+${owner}\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\s+Alpha report$`),
    );
    expect(lines).toHaveLength(3);
  });

  it('refuses a status that is none, naming the flag and the statuses there are', async () => {
    const listed = await runCli(['list', '--status', 'sleeping'], env);
    expect(listed.code).toBe(2);
    expect(listed.stderr).toContain('--status "sleeping": the status is one of running, idle, waiting_for_user, completed, stopped');
  });
});
