import { afterEach, describe, expect, it, vi } from 'vitest';
import { ToolLineGate } from '../../src/cli/tool-line-gate.js';

describe('the tool-line gate of streamed text', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const round = (turn: number, roundNumber: number) => ({ turn, round: roundNumber });

  it('holds a later round’s text until the earlier round’s tool results are printed, then shows it in order', () => {
    const gate = new ToolLineGate();
    const shown: string[] = [];
    gate.pass('s', round(1, 1), () => shown.push('first round text'));
    gate.started('s', 'call-a', round(1, 1));
    gate.started('s', 'call-b', round(1, 1));
    gate.pass('s', round(1, 2), () => shown.push('second round, part 1'));
    gate.pass('s', round(1, 2), () => shown.push('second round, part 2'));
    expect(shown).toEqual(['first round text']);
    gate.resultShown('s', 'call-a');
    shown.push('→ a ✓ a');
    expect(shown).toEqual(['first round text', '→ a ✓ a']);
    gate.resultShown('s', 'call-b');
    expect(shown).toEqual(['first round text', '→ a ✓ a', 'second round, part 1', 'second round, part 2']);
  });

  it('lets text of the round that started the calls through, and other sessions’ text too', () => {
    const gate = new ToolLineGate();
    const shown: string[] = [];
    gate.started('s', 'call-a', round(1, 1));
    gate.pass('s', round(1, 1), () => shown.push('same round'));
    gate.pass('other', round(1, 2), () => shown.push('another session'));
    expect(shown).toEqual(['same round', 'another session']);
  });

  it('does not wait for a result the event reader printed before the stream told of its call', () => {
    const gate = new ToolLineGate();
    const shown: string[] = [];
    gate.resultShown('s', 'call-a');
    gate.started('s', 'call-a', round(1, 1));
    gate.pass('s', round(1, 2), () => shown.push('next round'));
    expect(shown).toEqual(['next round']);
  });

  it('keeps output that is not text in its place behind held text', () => {
    const gate = new ToolLineGate();
    const shown: string[] = [];
    gate.started('s', 'call-a', round(1, 1));
    gate.pass('s', round(1, 2), () => shown.push('text'));
    gate.pass('s', undefined, () => shown.push('retry notice'));
    expect(shown).toEqual([]);
    gate.resultShown('s', 'call-a');
    expect(shown).toEqual(['text', 'retry notice']);
  });

  it('stops waiting for the calls of a model call that is tried again', () => {
    const gate = new ToolLineGate();
    const shown: string[] = [];
    gate.started('s', 'call-of-attempt-1', round(2, 1));
    gate.pass('s', round(2, 2), () => shown.push('text'));
    gate.forget('s', (started) => started.turn === 2 && started.round === 1);
    expect(shown).toEqual(['text']);
  });

  it('shows held text after the longest wait even if the results never come, and later text at once', () => {
    vi.useFakeTimers();
    const gate = new ToolLineGate(3_000);
    const shown: string[] = [];
    gate.started('s', 'call-a', round(1, 1));
    gate.pass('s', round(1, 2), () => shown.push('held'));
    vi.advanceTimersByTime(2_999);
    expect(shown).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(shown).toEqual(['held']);
    gate.pass('s', round(1, 2), () => shown.push('after'));
    expect(shown).toEqual(['held', 'after']);
  });

  it('shows everything held when the readers are done', () => {
    const gate = new ToolLineGate();
    const shown: string[] = [];
    gate.started('s', 'call-a', round(1, 1));
    gate.pass('s', round(1, 2), () => shown.push('held'));
    gate.flushAll();
    expect(shown).toEqual(['held']);
  });
});
