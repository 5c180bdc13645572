import { describe, expect, it } from 'vitest';
import { parseUntil } from '../../src/workflows/tools/wall-time.js';

describe('parseUntil', () => {
  it('reads a timestamp with an offset as that instant', () => {
    expect(parseUntil('2026-12-01T09:00:00+01:00', undefined)).toBe(Date.parse('2026-12-01T08:00:00Z'));
    expect(parseUntil('2026-12-01T09:00:00Z', 'Asia/Tokyo')).toBe(Date.parse('2026-12-01T09:00:00Z'));
  });

  it('reads a timestamp without an offset as wall-clock time in the time zone, summer and winter', () => {
    expect(new Date(parseUntil('2026-07-01T09:00:00', 'Europe/Paris')).toISOString()).toBe('2026-07-01T07:00:00.000Z');
    expect(new Date(parseUntil('2026-01-15T09:00', 'Europe/Paris')).toISOString()).toBe('2026-01-15T08:00:00.000Z');
    expect(new Date(parseUntil('2026-12-01T09:30:00', 'America/New_York')).toISOString()).toBe('2026-12-01T14:30:00.000Z');
    expect(new Date(parseUntil('2026-12-01', 'UTC')).toISOString()).toBe('2026-12-01T00:00:00.000Z');
  });

  it('explains what is wrong with a bad timestamp or zone', () => {
    expect(() => parseUntil('2026-12-01T09:00:00', undefined)).toThrow(/no UTC offset/);
    expect(() => parseUntil('soon', 'UTC')).toThrow(/not an ISO 8601 date-time/);
    expect(() => parseUntil('2026-12-01T09:00:00', 'Nowhere/Land')).toThrow(/not a known time zone/);
  });
});
