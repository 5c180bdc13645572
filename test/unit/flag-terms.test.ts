import { describe, expect, it } from 'vitest';
import { inFlagWords } from '../../src/cli/flag-terms.js';

describe('CLI errors in flag words', () => {
  it('names the flags that set the SDK fields an error names', () => {
    expect(inFlagWords('Invalid session options: ✖ Too big: expected number to be <=1000\n  → at max_tool_rounds')).toBe(
      'Invalid options: ✖ Too big: expected number to be <=1000\n  → at --max-tool-rounds',
    );
    expect(inFlagWords('start_local "2030-02-30T10:00" is not a valid date and time')).toBe(
      '--start "2030-02-30T10:00" is not a valid date and time',
    );
    expect(inFlagWords('recurrence is one of none, hourly')).toBe('--recurrence is one of none, hourly');
  });

  it('leaves words that are no field alone', () => {
    expect(inFlagWords('No session with id x.')).toBe('No session with id x.');
  });
});
