import { describe, expect, it } from 'vitest';
import { cronTimezoneFromEnv } from '../../src/activities/durations.js';
import { scheduleSpecFor } from '../../src/client/access/schedule-spec.js';
import { timeZoneProblem } from '../../src/shared/time-zones.js';

const refusal = (zone: string) => `"${zone}" is not a time zone: use an IANA name such as Europe/Berlin.`;

describe('time zones, checked once by the rule of the Temporal server that resolves schedules', () => {
  it.each(['UTC+5', '+05:00', 'Mars/Olympus', 'GMT+5', 'europe/berlin', 'utc', 'Local', 'Factory', ''])(
    'refuses %j with the plain message',
    (zone) => {
      expect(timeZoneProblem(zone)).toBe(refusal(zone));
    },
  );

  it.each(['Europe/Berlin', 'UTC', 'Etc/GMT+5', 'US/Eastern', 'Europe/Kyiv', 'Asia/Kolkata', 'America/Argentina/Buenos_Aires'])(
    'accepts the tz database name %s',
    (zone) => {
      expect(timeZoneProblem(zone)).toBeUndefined();
    },
  );

  it.each(['UTC+5', '+05:00', 'Mars/Olympus'])('refuses an automation schedule in %s before it reaches Temporal', (timezone) => {
    expect(scheduleSpecFor({ timezone, start_local: '2026-12-07T09:30', recurrence: 'daily' })).toEqual({
      ok: false,
      error: refusal(timezone),
    });
  });

  it('reads an automation schedule in a valid zone', () => {
    const timing = scheduleSpecFor({ timezone: 'Asia/Kolkata', start_local: '2026-12-07T09:30', recurrence: 'daily' });
    expect(timing.ok && timing.result.startsAt).toEqual(new Date('2026-12-07T04:00:00Z'));
  });

  it.each(['UTC+5', '+05:00', 'Mars/Olympus'])('stops a worker whose ARBOR_CRON_TIMEZONE is %s', (zone) => {
    expect(() => cronTimezoneFromEnv({ ARBOR_CRON_TIMEZONE: zone })).toThrow(`ARBOR_CRON_TIMEZONE: ${refusal(zone)}`);
  });

  it('takes a valid ARBOR_CRON_TIMEZONE', () => {
    expect(cronTimezoneFromEnv({ ARBOR_CRON_TIMEZONE: ' Europe/Berlin ' })).toBe('Europe/Berlin');
  });
});
