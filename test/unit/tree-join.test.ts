import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { joinTreeReaders, type MemberReader } from '../../src/client/events/tree-join.js';

describe('joining the readers of a tree', () => {
  it('gives each of a hundred members a signal of its own, so the caller’s signal holds one listener, and stops them all on abort', async () => {
    const caller = new AbortController();
    const signals: AbortSignal[] = [];
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    // Each member waits for its signal as a reader waits on a long poll, with a listener of its own.
    const read: MemberReader<string, number> = async function* (member, _from, follow, signal) {
      if (member.depth === 0) for (let index = 1; index < 100; index += 1) follow({ id: `s${index}`, title: '', depth: 1 }, 0);
      signals.push(signal);
      yield member.id;
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    };
    const seen: string[] = [];
    try {
      for await (const id of joinTreeReaders({ id: 's0', title: '', depth: 0 }, 0, read, { signal: caller.signal })) {
        seen.push(id);
        if (seen.length === 100) {
          expect(new Set(signals).size).toBe(100);
          expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
          expect(signals.every((signal) => getEventListeners(signal, 'abort').length === 1)).toBe(true);
          caller.abort();
        }
      }
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(seen).toHaveLength(100);
    expect(signals.every((signal) => signal.aborted)).toBe(true);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual([]);
  });
});
