import { describe, expect, it } from 'vitest';
import { sliceToUtf8Bytes, utf8Length } from '../../src/shared/utf8.js';

const samples = ['plain ascii', 'é café', '会话 and 長い', 'emoji 🌳🌲', 'lone \ud800 surrogate', ''];

describe('utf8Length', () => {
  it('counts what Buffer counts, for one-, two-, three- and four-byte characters and a lone surrogate', () => {
    for (const text of samples) expect(utf8Length(text)).toBe(Buffer.byteLength(text, 'utf8'));
  });
});

describe('sliceToUtf8Bytes', () => {
  it('keeps the longest start within the bytes given, never splitting a character', () => {
    expect(sliceToUtf8Bytes('会话会话', 7)).toBe('会话');
    expect(sliceToUtf8Bytes('a🌳b', 4)).toBe('a');
    expect(sliceToUtf8Bytes('a🌳b', 5)).toBe('a🌳');
    expect(sliceToUtf8Bytes('short', 100)).toBe('short');
    expect(sliceToUtf8Bytes('anything', 0)).toBe('');
    for (const text of samples) {
      for (let bytes = 0; bytes <= utf8Length(text); bytes++) expect(utf8Length(sliceToUtf8Bytes(text, bytes))).toBeLessThanOrEqual(bytes);
    }
  });
});
