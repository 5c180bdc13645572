import { beforeEach, describe, expect, it } from 'vitest';
import type { TranscriptEntry } from '../../src/shared/session.js';
import { utf8Length } from '../../src/shared/utf8.js';
import { carriedTranscriptBytes, carriedTranscriptEntries, compactTranscript, Transcript } from '../../src/workflows/transcript.js';

let transcript: Transcript;

beforeEach(() => {
  let n = 0;
  transcript = new Transcript({ now: () => new Date(Date.parse('2024-05-01T10:00:00.000Z')), newId: () => `id-${n++}` });
});

describe('range', () => {
  beforeEach(() => {
    for (let i = 0; i < 5; i++) transcript.append({ role: 'user', content: `m${i}` });
  });
  const contents = (entries: TranscriptEntry[]) => entries.map((entry) => entry.content);

  it('returns the whole transcript without a range', () => {
    expect(contents(transcript.range())).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
  });

  it('starts at offset and returns at most limit entries', () => {
    expect(contents(transcript.range({ offset: 1, limit: 2 }))).toEqual(['m1', 'm2']);
  });

  it('returns everything from offset when no limit is given', () => {
    expect(contents(transcript.range({ offset: 3 }))).toEqual(['m3', 'm4']);
  });

  it('treats a negative offset as zero and a negative limit as zero', () => {
    expect(contents(transcript.range({ offset: -3, limit: 1 }))).toEqual(['m0']);
    expect(transcript.range({ offset: 1, limit: -1 })).toEqual([]);
  });

  it('returns nothing for an offset past the end', () => {
    expect(transcript.range({ offset: 10 })).toEqual([]);
  });

  it('returns a copy that does not alias the transcript', () => {
    const range = transcript.range();
    range.pop();
    expect(transcript.entries).toHaveLength(5);
  });

  it('stops a page with max_chars before the entry that would pass it, but always gives one entry', () => {
    transcript.append({ role: 'user', content: 'x'.repeat(10) });
    transcript.append({ role: 'user', content: 'y'.repeat(10) });
    // m0..m4 are two characters each.
    expect(contents(transcript.range({ max_chars: 6 }))).toEqual(['m0', 'm1', 'm2']);
    expect(contents(transcript.range({ offset: 3, max_chars: 14 }))).toEqual(['m3', 'm4', 'x'.repeat(10)]);
    expect(contents(transcript.range({ offset: 5, max_chars: 1 }))).toEqual(['x'.repeat(10)]);
    expect(contents(transcript.range({ offset: 1, limit: 2, max_chars: 1_000 }))).toEqual(['m1', 'm2']);
  });

  it.each([0, -1, 'many', null])('ignores a max_chars of %j from a caller', (maxChars) => {
    expect(transcript.range({ max_chars: maxChars as number })).toHaveLength(5);
  });
});

describe('finalMessage', () => {
  it('is null when no assistant has spoken', () => {
    transcript.append({ role: 'user', content: 'hi' });
    expect(transcript.finalMessage()).toBeNull();
  });

  it('is the last assistant content, skipping assistant entries that only called tools and later tool entries', () => {
    transcript.append({ role: 'assistant', content: 'first answer' });
    transcript.append({ role: 'user', content: 'more' });
    transcript.append({ role: 'assistant', content: 'second answer' });
    transcript.append({ role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'todoWrite', arguments: '{}' }] });
    transcript.append({ role: 'tool', content: 'ok', tool_call_id: 'c1', name: 'todoWrite' });
    transcript.append({ role: 'error', content: 'boom' });
    expect(transcript.finalMessage()).toBe('second answer');
  });
});

describe('compactTranscript', () => {
  const entry = (role: TranscriptEntry['role'], n: number): TranscriptEntry => ({
    id: `e${n}`,
    role,
    content: `${role} ${n}`,
    created_at: 't',
  });

  it('leaves a short transcript alone', () => {
    const short = [entry('user', 0), entry('assistant', 1)];
    expect(compactTranscript(short, 'now')).toBe(short);
  });

  it('keeps the newest entries from a user message on, behind a notice of what was left out', () => {
    const long = Array.from({ length: carriedTranscriptEntries + 10 }, (_, n) =>
      entry(n % 3 === 0 ? 'user' : n % 3 === 1 ? 'assistant' : 'tool', n),
    );
    const kept = compactTranscript(long, 'now');
    expect(kept[0]).toMatchObject({ role: 'notice', created_at: 'now' });
    expect(kept[1]!.role).toBe('user');
    expect(kept.length).toBeLessThanOrEqual(carriedTranscriptEntries + 1);
    expect(kept.at(-1)).toBe(long.at(-1));
    expect(kept[0]!.content).toBe(
      `${long.length - kept.length + 1} earlier transcript entries were compacted away when the session continued as new; the conversation goes on from here.`,
    );
  });

  it('keeps a turn longer than the allowance whole, from its user message', () => {
    const long = [
      entry('user', 0),
      entry('assistant', 1),
      entry('user', 2),
      ...Array.from({ length: carriedTranscriptEntries + 5 }, (_, n) => entry('tool', n + 3)),
    ];
    const kept = compactTranscript(long, 'now');
    expect(kept[1]).toBe(long[2]);
    expect(kept).toHaveLength(long.length - 2 + 1);
  });

  const sized = (role: TranscriptEntry['role'], n: number, chars: number): TranscriptEntry => ({
    ...entry(role, n),
    content: 'x'.repeat(chars),
  });
  const charsOf = (entries: TranscriptEntry[]) => entries.slice(1).reduce((sum, kept) => sum + kept.content.length, 0);

  it('carries at most carriedTranscriptBytes bytes, from a user message, however few the entries', () => {
    const long = Array.from({ length: 12 }, (_, n) => sized(n % 2 === 0 ? 'user' : 'assistant', n, 200_000));
    const kept = compactTranscript(long, 'now');
    expect(kept[0]!.role).toBe('notice');
    expect(kept[1]!.role).toBe('user');
    expect(charsOf(kept)).toBeLessThanOrEqual(carriedTranscriptBytes);
    expect(kept.at(-1)).toBe(long.at(-1));
  });

  it('keeps a turn bigger than the allowance from a model answer that fits, never a tool result without its call', () => {
    const turn = [
      sized('user', 0, 10),
      sized('assistant', 1, 10),
      ...Array.from({ length: 12 }, (_, n) => sized('tool', n + 2, 100_000)),
      sized('assistant', 14, 100),
      sized('tool', 15, 100_000),
      sized('assistant', 16, 100),
    ];
    const kept = compactTranscript(turn, 'now');
    expect(kept[1]).toBe(turn[14]);
    expect(kept.slice(1).map((kept) => kept.role)).toEqual(['assistant', 'tool', 'assistant']);
    expect(charsOf(kept)).toBeLessThanOrEqual(carriedTranscriptBytes);
  });

  it('counts bytes, not characters: Chinese text takes three bytes a character', () => {
    const chinese = (role: TranscriptEntry['role'], n: number): TranscriptEntry => ({ ...entry(role, n), content: '会话'.repeat(50_000) });
    const long = Array.from({ length: 12 }, (_, n) => chinese(n % 2 === 0 ? 'user' : 'assistant', n));
    const kept = compactTranscript(long, 'now');
    // 100,000 characters, 300,000 bytes each: three fit in 1 MB, not ten.
    expect(kept.slice(1)).toHaveLength(2);
    expect(utf8Length(JSON.stringify(kept))).toBeLessThan(carriedTranscriptBytes);
  });
});
