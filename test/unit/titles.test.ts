import { describe, expect, it } from 'vitest';
import { defaultTitle } from '../../src/shared/titles.js';

describe('defaultTitle', () => {
  it('is "Untitled session" without an instruction or with a blank one', () => {
    expect(defaultTitle(undefined)).toBe('Untitled session');
    expect(defaultTitle('')).toBe('Untitled session');
    expect(defaultTitle('  \n\t \n ')).toBe('Untitled session');
  });

  it('takes the first non-blank line, trimmed', () => {
    expect(defaultTitle('  Fix the build  \nthen run tests')).toBe('Fix the build');
    expect(defaultTitle('\n\n  Second line is first\nthird')).toBe('Second line is first');
  });

  it('drops a carriage return from Windows line endings', () => {
    expect(defaultTitle('Hello\r\nWorld')).toBe('Hello');
  });

  it('keeps a first line of exactly 60 characters', () => {
    const line = 'a'.repeat(60);
    expect(defaultTitle(line)).toBe(line);
  });

  it('cuts a longer first line to 60 characters ending in an ellipsis', () => {
    const title = defaultTitle('b'.repeat(61));
    expect(title).toBe(`${'b'.repeat(59)}…`);
    expect(title).toHaveLength(60);
  });
});
