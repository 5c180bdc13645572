import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { devServerWorkers } from '../support/dev-server-workers.js';
import type { Automation } from '../../src/shared/tools/automations.js';
import { runCli } from '../support/processes.js';
import { call, toolResults } from '../support/scripted-model.js';
import { waitUntil } from '../support/wait.js';

/** The next whole minute in UTC as YYYY-MM-DDTHH:mm, at least 5 seconds away. */
function nextMinuteUtc(): string {
  const next = new Date(Math.ceil((Date.now() + 5_000) / 60_000) * 60_000);
  return next.toISOString().slice(0, 16);
}

describe('automations on Temporal Schedules (dev server, worker process, fake model)', () => {
  const servers = devServerWorkers('sk-automation');
  const { fake, model } = servers;
  const env = servers.cliEnv;

  it('creates an automation from a session, runs it now through its schedule, waits for it, runs it on schedule, updates and deletes it', async () => {
    const owner = `erin-${randomUUID().slice(0, 8)}`;
    const instruction = `automate the report ${randomUUID()}`;
    const prompt = `Write the queue report ${randomUUID()}`;
    const startLocal = nextMinuteUtc();
    let automationId = '';
    model.script(
      instruction,
      call('automation_create', { title: 'Queue report', prompt, timezone: 'UTC', start_local: startLocal, recurrence: '0 * * * *' }),
      call('automation_create', { title: 'Queue report', prompt, timezone: 'UTC', start_local: startLocal, recurrence: 'hourly' }),
      (request) => {
        automationId = (JSON.parse(toolResults(request).at(-1)!) as Automation).automation_id;
        return call('automation_run_enqueue', { automation_id: automationId });
      },
      (request) => call('automation_run_wait', { run_id: JSON.parse(toolResults(request).at(-1)!).run_id, timeout_ms: 30_000 }),
      { content: 'Automation set up and tried.' },
    );
    model.script(prompt, { content: 'Report: queue is empty.' });

    const session = await servers.client.startSession({ profile: 'all', instruction, owner });
    await session.waitUntilIdle({ timeoutMs: 60_000 });
    const results = toolResults(fake.requestsFor(instruction).at(-1)!);
    expect(results[0]).toMatch(/^Error: Invalid arguments for automation_create:[\s\S]*cron expressions are not accepted/);
    const created = JSON.parse(results[1]!) as Automation;
    expect(created).toMatchObject({
      owner,
      title: 'Queue report',
      recurrence: 'hourly',
      start_local: startLocal,
      enabled: true,
      tools: [],
    });
    expect(created.next_run_at).toBe(`${startLocal}:00.000Z`);
    const waited = JSON.parse(results[3]!);
    const manualRunId = JSON.parse(results[2]!).run_id as string;
    expect(waited).toMatchObject({
      run_id: manualRunId,
      status: 'completed',
      final_message: 'Report: queue is empty.',
      timed_out: false,
      automation_id: automationId,
    });

    // The run now was the schedule's own action: the Schedules page and recent_run_ids show it. (The start minute may
    // have come meanwhile, so the scheduled run may be listed too.)
    const schedule = servers.client.temporal.schedule.getHandle(automationId);
    const actionRunIds = async () => (await schedule.describe()).info.recentActions.map((action) => action.action.workflow.workflowId);
    expect(await actionRunIds()).toContain(manualRunId);
    const automations = servers.client.automations(owner);
    expect((await automations.get(automationId)).recent_run_ids).toContain(manualRunId);

    // The schedule is a real Temporal Schedule, and it fires by itself at the start minute.
    model.script(prompt, { content: 'Scheduled report: queue is empty.' });
    await waitUntil(async () => (await actionRunIds()).length === 2, 90_000);
    const scheduledRunId = (await actionRunIds()).find((id) => id !== manualRunId)!;
    expect((await schedule.describe()).info.numActionsTaken).toBe(2);
    const scheduledRun = await automations.waitRun(scheduledRunId, 30_000);
    expect(scheduledRun).toMatchObject({
      status: 'completed',
      final_message: 'Scheduled report: queue is empty.',
      automation_id: automationId,
    });
    expect(await servers.client.session(scheduledRunId).snapshot()).toMatchObject({ owner, title: 'Queue report', status: 'completed' });

    const updated = await automations.update({ automation_id: automationId, recurrence: 'daily', enabled: false });
    expect(updated).toMatchObject({ recurrence: 'daily', enabled: false, next_run_at: null });
    expect((await schedule.describe()).state.paused).toBe(true);

    // A paused automation still runs when asked, from the CLI too, and the run is the schedule's third action.
    model.script(prompt, { content: 'Paused report: queue is empty.' });
    const ranNow = await runCli(['automations', 'run', automationId, '--owner', owner, '--wait', '30000', '--json'], env);
    expect(ranNow.code, ranNow.stderr).toBe(0);
    const pausedRunId = JSON.parse(ranNow.stdout).run_id as string;
    const recent = (await automations.get(automationId)).recent_run_ids;
    expect([...recent].sort()).toEqual([manualRunId, scheduledRunId, pausedRunId].sort());
    expect(recent.at(-1)).toBe(pausedRunId);
    expect(await automations.waitRun(pausedRunId, 30_000)).toMatchObject({
      status: 'completed',
      final_message: 'Paused report: queue is empty.',
    });
    await expect(servers.client.automations(`mallory-${randomUUID().slice(0, 8)}`).get(automationId)).rejects.toThrow(
      `No automation ${automationId}`,
    );

    const listed = await runCli(['automations', 'list', '--owner', owner, '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).automations).toEqual([expect.objectContaining({ automation_id: automationId, enabled: false })]);
    const removed = await runCli(['automations', 'delete', automationId, '--owner', owner], env);
    expect(removed.code, removed.stderr).toBe(0);
    expect(await automations.list()).toEqual([]);
  }, 180_000);

  it('refuses a fixed-offset or unknown time zone from a session, the client and the CLI with one plain message, at the first attempt', async () => {
    const owner = `omar-${randomUUID().slice(0, 8)}`;
    const instruction = `schedule in odd zones ${randomUUID()}`;
    const refusal = (zone: string) => `"${zone}" is not a time zone: use an IANA name such as Europe/Berlin.`;
    const create = (timezone: string) =>
      call('automation_create', { title: 'Zoned', prompt: 'Say hi', timezone, start_local: '2099-01-01T09:00', recurrence: 'daily' });
    model.script(instruction, create('UTC+5'), create('+05:00'), create('Mars/Olympus'), create('Asia/Kolkata'), { content: 'Done.' });

    const session = await servers.client.startSession({ profile: 'all', instruction, owner });
    await session.waitUntilIdle({ timeoutMs: 60_000 });
    const results = toolResults(fake.requestsFor(instruction).at(-1)!);
    expect(results.slice(0, 3)).toEqual([`Error: ${refusal('UTC+5')}`, `Error: ${refusal('+05:00')}`, `Error: ${refusal('Mars/Olympus')}`]);
    const created = JSON.parse(results[3]!) as Automation;
    expect(created).toMatchObject({ owner, timezone: 'Asia/Kolkata', next_run_at: '2099-01-01T03:30:00.000Z' });
    // Each refusal is the activity's answer, not a failure Temporal retried.
    const history = await servers.client.temporal.workflow.getHandle(session.id).fetchHistory();
    const events = history.events ?? [];
    expect(events.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'automationCall')).toHaveLength(4);
    expect(events.filter((event) => event.activityTaskFailedEventAttributes)).toEqual([]);

    const automations = servers.client.automations(owner);
    for (const timezone of ['UTC+5', '+05:00', 'Mars/Olympus']) {
      await expect(
        automations.create({ title: 'Zoned', prompt: 'Say hi', timezone, start_local: '2099-01-01T09:00', recurrence: 'daily' }),
      ).rejects.toThrow(refusal(timezone));
      const cli = await runCli(
        [
          'automations',
          'create',
          '--owner',
          owner,
          '--title',
          'Zoned',
          '--prompt',
          'Say hi',
          '--start',
          '2099-01-01T09:00',
          '--timezone',
          timezone,
        ],
        env,
      );
      expect(cli.code).toBe(2);
      expect(cli.stderr).toContain(refusal(timezone));
    }
    const fromCli = await runCli(
      [
        'automations',
        'create',
        '--owner',
        owner,
        '--title',
        'Zoned',
        '--prompt',
        'Say hi',
        '--start',
        '2099-01-01T09:00',
        '--timezone',
        'Europe/Berlin',
        '--json',
      ],
      env,
    );
    expect(fromCli.code, fromCli.stderr).toBe(0);
    expect(JSON.parse(fromCli.stdout)).toMatchObject({ timezone: 'Europe/Berlin', next_run_at: '2099-01-01T08:00:00.000Z' });
    expect((await automations.list()).map((automation) => automation.timezone).sort()).toEqual(['Asia/Kolkata', 'Europe/Berlin']);
    for (const automation of await automations.list()) await automations.delete(automation.automation_id);
  }, 180_000);
});
