/** Milliseconds since the epoch of an ISO 8601 date-time; one without an offset is read in `timeZone`. */
export function parseUntil(until: string, timeZone: string | undefined): number {
  const hasOffset = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(until);
  if (hasOffset) {
    const ms = Date.parse(until);
    if (Number.isNaN(ms)) throw new Error(`"${until}" is not an ISO 8601 date-time.`);
    return ms;
  }
  if (!timeZone) throw new Error(`"${until}" has no UTC offset: add one (e.g. +01:00 or Z) or give a timezone.`);
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?$/.exec(until);
  if (!match) throw new Error(`"${until}" is not an ISO 8601 date-time.`);
  const [, y, mo, d, h = '0', mi = '0', s = '0', ms = '0'] = match;
  const wall = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Number(ms.padEnd(3, '0')));
  // The instant whose wall-clock time in the zone is `wall`: correct the guess by the zone's offset, twice for DST edges.
  let instant = wall - offsetAt(wall, timeZone);
  instant = wall - offsetAt(instant, timeZone);
  return instant;
}

function offsetAt(instant: number, timeZone: string): number {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
  } catch {
    throw new Error(`"${timeZone}" is not a known time zone (use an IANA name such as Europe/Paris).`);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(instant)).map((part) => [part.type, part.value]));
  const asUtc = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  return asUtc - Math.floor(instant / 1000) * 1000;
}
