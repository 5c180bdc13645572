import { describe, expect, it, vi } from 'vitest';
import { maxUnacknowledgedBytes, maxUnacknowledgedSends, SendWindows } from '../../src/client/send-windows.js';

/** A session that records the signals it gets and takes a message in only when the test says so. */
function fakeSession() {
  const sent: string[] = [];
  const seen = new Set<string>();
  return {
    sent,
    takeIn: (id: string) => seen.add(id),
    signal: (id: string) => async () => void sent.push(id),
    isSeen: async (id: string) => seen.has(id),
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

describe('the send window of a session', () => {
  it('holds a large message back until the session has taken in the ones before it, then sends it', async () => {
    const windows = new SendWindows();
    const session = fakeSession();
    const big = 600_000;
    const sends = ['a', 'b', 'c'].map((id) => windows.send('s1', id, big, session.signal(id), session.isSeen));
    await settle();
    expect(session.sent).toEqual(['a']);
    session.takeIn('a');
    await vi.waitFor(() => expect(session.sent).toEqual(['a', 'b']));
    await settle();
    expect(session.sent).toEqual(['a', 'b']);
    session.takeIn('b');
    await Promise.all(sends);
    expect(session.sent).toEqual(['a', 'b', 'c']);
  });

  it('sends small messages at once up to the count limit, in call order', async () => {
    const windows = new SendWindows();
    const session = fakeSession();
    const ids = Array.from({ length: maxUnacknowledgedSends + 1 }, (_, index) => `m${index}`);
    const sends = ids.map((id) => windows.send('s2', id, 100, session.signal(id), session.isSeen));
    await settle();
    expect(session.sent).toEqual(ids.slice(0, maxUnacknowledgedSends));
    session.takeIn(ids[maxUnacknowledgedSends - 1]!);
    await Promise.all(sends);
    expect(session.sent).toEqual(ids);
  });

  it('sends a message larger than the byte limit alone, without waiting when nothing is outstanding', async () => {
    const windows = new SendWindows();
    const session = fakeSession();
    await windows.send('s3', 'huge', maxUnacknowledgedBytes * 2, session.signal('huge'), session.isSeen);
    expect(session.sent).toEqual(['huge']);
    const next = windows.send('s3', 'small', 10, session.signal('small'), session.isSeen);
    await settle();
    expect(session.sent).toEqual(['huge']);
    session.takeIn('huge');
    await next;
    expect(session.sent).toEqual(['huge', 'small']);
  });

  it('keeps the windows of two sessions apart', async () => {
    const windows = new SendWindows();
    const session = fakeSession();
    const first = windows.send('one', 'x', maxUnacknowledgedBytes, session.signal('x'), session.isSeen);
    const blocked = windows.send('one', 'y', 1, session.signal('y'), session.isSeen);
    await windows.send('two', 'z', maxUnacknowledgedBytes, session.signal('z'), session.isSeen);
    await first;
    expect(session.sent).toEqual(['x', 'z']);
    session.takeIn('x');
    await blocked;
    expect(session.sent).toEqual(['x', 'z', 'y']);
  });
});
