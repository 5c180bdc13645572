import { describe, expect, it } from 'vitest';
import { scheduleSpecFor } from '../../src/client/access/schedule-spec.js';
import { automationCreate, automationIdOfRun, runIdOf } from '../../src/shared/tools/automations.js';

const timing = (recurrence: string, start_local = '2026-12-07T09:30', timezone = 'Europe/Berlin') =>
  scheduleSpecFor({ recurrence: recurrence as never, start_local, timezone });

describe('automation schedules', () => {
  it.each([
    ['none', { minute: 30, hour: 9, dayOfMonth: 7, month: 'DECEMBER', year: 2026 }],
    ['hourly', { minute: 30, hour: '*' }],
    ['daily', { minute: 30, hour: 9 }],
    ['weekly', { minute: 30, hour: 9, dayOfWeek: 'MONDAY' }],
    ['monthly', { minute: 30, hour: 9, dayOfMonth: 7 }],
    ['yearly', { minute: 30, hour: 9, dayOfMonth: 7, month: 'DECEMBER' }],
  ])('turns %s into a calendar in the time zone, starting at the local start', (recurrence, calendar) => {
    const reply = timing(recurrence);
    if (!reply.ok) throw new Error(reply.error);
    const { result } = reply;
    expect(result.spec).toEqual({ calendars: [calendar], timezone: 'Europe/Berlin', startAt: new Date('2026-12-07T08:30:00Z') });
    expect(result.once).toBe(recurrence === 'none');
  });

  it('names a bad time zone or an impossible start', () => {
    expect(timing('daily', '2026-12-07T09:30', 'Mars/Olympus')).toEqual({
      ok: false,
      error: '"Mars/Olympus" is not a time zone: use an IANA name such as Europe/Berlin.',
    });
    expect(timing('daily', '2026-02-30T09:30', 'UTC')).toEqual({
      ok: false,
      error: expect.stringMatching(/^start_local "2026-02-30T09:30" is not a valid date and time/),
    });
  });

  it('refuses a cron expression as recurrence, and a start in another format', () => {
    const base = { title: 'Report', prompt: 'Write it', timezone: 'UTC', start_local: '2026-12-07T09:30' };
    expect(automationCreate.input.safeParse({ ...base, recurrence: '0 9 * * *' }).error?.issues[0]?.message).toBe(
      'recurrence is one of none, hourly, daily, weekly, monthly, yearly; cron expressions are not accepted',
    );
    expect(
      automationCreate.input.safeParse({ ...base, recurrence: 'daily', start_local: '07.12.2026 09:30' }).error?.issues[0]?.message,
    ).toBe('start_local is a local date and time of the form YYYY-MM-DDTHH:mm');
  });

  it('finds the automation of a run id', () => {
    const automationId = 'automation-1b4e28ba-2fa1-11d2-883f-0016d3cca427';
    expect(automationIdOfRun(runIdOf(automationId, 'scheduled-2026-12-07T08:30:00Z'))).toBe(automationId);
    expect(automationIdOfRun('1b4e28ba-2fa1-11d2-883f-0016d3cca427')).toBeUndefined();
  });
});
