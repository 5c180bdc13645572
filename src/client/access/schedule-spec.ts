import type { CalendarSpec, DayOfWeek, Month, ScheduleSpec } from '@temporalio/client';
import { DateTime } from 'luxon';
import type { Recurrence } from '../../shared/tools/automations.js';
import type { ToolReply } from '../../shared/tool-reply.js';
import { timeZoneProblem } from '../../shared/time-zones.js';

const months: Month[] = [
  'JANUARY',
  'FEBRUARY',
  'MARCH',
  'APRIL',
  'MAY',
  'JUNE',
  'JULY',
  'AUGUST',
  'SEPTEMBER',
  'OCTOBER',
  'NOVEMBER',
  'DECEMBER',
];
const days: DayOfWeek[] = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];

export interface AutomationTiming {
  timezone: string;
  start_local: string;
  recurrence: Recurrence;
}

/**
 * The Temporal Schedule spec of an automation: a calendar in the automation's time zone that matches the start's
 * minute, hour, weekday, day or month as the recurrence asks, starting at the start. `none` runs once.
 * Refused, with a message naming the problem, when the time zone or the start is not valid.
 */
export function scheduleSpecFor(timing: AutomationTiming): ToolReply<{ spec: ScheduleSpec; once: boolean; startsAt: Date }> {
  const zoneProblem = timeZoneProblem(timing.timezone);
  if (zoneProblem) return { ok: false, error: zoneProblem };
  const start = DateTime.fromISO(timing.start_local, { zone: timing.timezone });
  if (!start.isValid) {
    return {
      ok: false,
      error: `start_local "${timing.start_local}" is not a valid date and time (${start.invalidExplanation ?? start.invalidReason}).`,
    };
  }
  const at = { minute: start.minute, hour: start.hour };
  const calendars: Record<Recurrence, CalendarSpec> = {
    none: { ...at, dayOfMonth: start.day, month: months[start.month - 1]!, year: start.year },
    hourly: { minute: start.minute, hour: '*' },
    daily: at,
    weekly: { ...at, dayOfWeek: days[start.weekday - 1]! },
    monthly: { ...at, dayOfMonth: start.day },
    yearly: { ...at, dayOfMonth: start.day, month: months[start.month - 1]! },
  };
  const startsAt = start.toJSDate();
  return {
    ok: true,
    result: {
      spec: { calendars: [calendars[timing.recurrence]], timezone: timing.timezone, startAt: startsAt },
      once: timing.recurrence === 'none',
      startsAt,
    },
  };
}
