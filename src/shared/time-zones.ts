import tzdata from 'tzdata/tzdata.js';
import { lazy } from './lazy.js';

/**
 * The names of the IANA tz database, zones and links, spelled as the database spells them. Automations' schedules are
 * resolved by the Temporal server with Go's `time.LoadLocation`, which knows exactly these names, case and all
 * (`europe/paris`, `UTC+5` and `+05:00` are unknown to it); wait and cron read zones with Intl (or luxon, which uses
 * Intl), which knows the same names in any case but no offsets.
 */
const tzDatabaseNames = lazy(() => new Set(Object.keys(tzdata.zones)));

/**
 * Why `zone` is not a time zone that every part of Arbor reads the same way (Temporal's schedules, Intl, luxon), or
 * undefined when it is one: a tz database name, spelled as the database spells it, that Intl knows too.
 */
export function timeZoneProblem(zone: string): string | undefined {
  return tzDatabaseNames().has(zone) && intlKnows(zone) ? undefined : notATimeZone(zone);
}

export const notATimeZone = (zone: string) => `"${zone}" is not a time zone: use an IANA name such as Europe/Berlin.`;

function intlKnows(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
