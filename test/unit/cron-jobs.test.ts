import { describe, expect, it } from 'vitest';
import type { ToolReply } from '../../src/shared/tool-reply.js';
import { maxCronJobs, type CronJob } from '../../src/shared/tools/cron.js';
import { CronJobs } from '../../src/workflows/cron-jobs.js';

function jobs(start = '2026-11-30T10:00:00Z') {
  let now = new Date(start);
  let n = 0;
  const crons = new CronJobs(
    [],
    () => now,
    () => `${String(n++).padStart(8, '0')}-id`,
  );
  return { crons, at: (iso: string) => (now = new Date(iso)) };
}

const settings = { timezone: 'UTC', maxAgeSeconds: 7 * 86_400 };
const job = (cron: string, recurring = true) => ({ cron, prompt: 'Report', recurring, durable: true });

function created(reply: ToolReply<CronJob>): CronJob {
  if (!reply.ok) throw new Error(reply.error);
  return reply.result;
}

describe('cron jobs', () => {
  it('describes the schedule in words and computes the next fire time in the configured time zone', () => {
    const { crons } = jobs();
    const created = crons.create(job('0 9 * * 1-5'), { ...settings, timezone: 'Europe/Berlin' });
    expect(created).toMatchObject({
      ok: true,
      result: { human_schedule: 'At 09:00, Monday through Friday (Europe/Berlin)', next_fire_at: '2026-12-01T08:00:00.000Z' },
    });
  });

  it.each([
    ['four fields', '0 9 * *', 'has 4 fields; a cron expression here has exactly 5'],
    ['six fields', '0 0 9 * * 1', 'has 6 fields'],
    ['a date that does not exist', '0 0 30 2 *', 'is not a valid cron expression'],
    ['words instead of fields', 'every day at noon please', 'is not a valid cron expression'],
  ])('refuses %s', (_case, cron, message) => {
    const created = jobs().crons.create(job(cron), settings);
    expect(!created.ok && created.error).toContain(message);
  });

  it('refuses an expression that does not fire within a year', () => {
    expect(jobs().crons.create(job('0 0 29 2 *'), settings)).toEqual({
      ok: false,
      error: '"0 0 29 2 *" never fires within the next year; check the day and month fields.',
    });
    expect(jobs('2027-03-01T00:00:00Z').crons.create(job('0 0 29 2 *'), settings)).toMatchObject({
      ok: true,
      result: { next_fire_at: '2028-02-29T00:00:00.000Z' },
    });
  });

  it(`refuses more than ${maxCronJobs} jobs`, () => {
    const { crons } = jobs();
    for (let i = 0; i < maxCronJobs; i++) crons.create(job('0 * * * *'), settings);
    expect(crons.create(job('0 * * * *'), settings)).toEqual({
      ok: false,
      error: `This session already has ${maxCronJobs} cron jobs, the most it may; delete one first.`,
    });
  });

  it('fires a recurring job at each match and a one-shot job once, then deletes it', () => {
    const { crons, at } = jobs();
    const hourly = created(crons.create(job('30 * * * *'), settings));
    const once = created(crons.create(job('45 10 * * *', false), settings));
    expect(crons.nextWake()).toBe(Date.parse('2026-11-30T10:30:00Z'));
    at('2026-11-30T10:30:00Z');
    expect(crons.fireDue().map((message) => message.id)).toEqual([`cron:${hourly.id}:1`]);
    at('2026-11-30T10:45:00Z');
    expect(crons.fireDue().map((message) => message.id)).toEqual([`cron:${once.id}:1`]);
    expect(crons.jobs.map((remaining) => remaining.id)).toEqual([hourly.id]);
    at('2026-11-30T11:30:00Z');
    expect(crons.fireDue()[0]!.content).toBe(`[Cron ${hourly.id}, At 30 minutes past the hour (UTC)] Report`);
    expect(crons.jobs[0]).toMatchObject({ firings: 2, next_fire_at: '2026-11-30T12:30:00.000Z' });
  });

  it('drops a recurring job at its expiry', () => {
    const { crons, at } = jobs();
    crons.create(job('0 * * * *'), { ...settings, maxAgeSeconds: 3_600 * 2 + 60 });
    at('2026-11-30T12:01:00Z');
    crons.fireDue();
    at('2026-11-30T12:02:00Z');
    expect(crons.fireDue()).toEqual([]);
    expect(crons.jobs).toEqual([]);
  });
});
