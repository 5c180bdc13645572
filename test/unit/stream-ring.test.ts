import { describe, expect, it } from 'vitest';
import { StreamRing } from '../../src/workflows/stream-ring.js';

const origin = { turn: 1, round: 1, attempt: 1 };
const textOfPage = (ring: StreamRing) =>
  ring
    .page()
    .items.map((item) => (item.type === 'text_delta' ? item.text : ''))
    .join('');

describe('the session stream ring', () => {
  it('keeps the whole of a text delta longer than one item may hold, in several items in order', () => {
    const ring = new StreamRing('session-1', 1_000);
    const text = Array.from({ length: 9_000 }, (_, index) => `w${index} `).join('');
    ring.receive({ items: [{ type: 'text_delta', text, ...origin }] });
    const { items } = ring.page();
    expect(items.length).toBeGreaterThan(1);
    expect(items.every((item) => item.type === 'text_delta' && item.text.length <= 20_000)).toBe(true);
    expect(textOfPage(ring)).toBe(text);
    expect(items.map((item) => item.pos)).toEqual([...items.map((item) => item.pos)].sort((a, b) => a - b));
  });

  it('never splits a character written as a surrogate pair between two items', () => {
    const ring = new StreamRing('session-1', 1_000);
    const text = 'a'.repeat(19_999) + '😀' + 'b'.repeat(10);
    ring.receive({ items: [{ type: 'text_delta', text, ...origin }] });
    const texts = ring.page().items.map((item) => (item.type === 'text_delta' ? item.text : ''));
    expect(texts).toEqual(['a'.repeat(19_999), '😀' + 'b'.repeat(10)]);
  });

  it('leaves out what is malformed in a batch and keeps the rest', () => {
    const ring = new StreamRing('session-1', 1_000);
    ring.receive({
      items: [{ type: 'text_delta', text: 42 }, { type: 'nonsense' }, { type: 'text_delta', text: 'kept', ...origin }],
    } as never);
    expect(textOfPage(ring)).toBe('kept');
    expect(ring.page().items).toHaveLength(1);
  });
});
