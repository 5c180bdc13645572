import { describe, expect, it } from 'vitest';
import { listedStatus } from '../../src/client/session-list.js';

describe("a listed session's status", () => {
  it.each([
    ['COMPLETED', 'running', 'completed'],
    ['COMPLETED', 'idle', 'completed'],
    ['COMPLETED', 'failed', 'failed'],
    ['CANCELLED', 'running', 'stopped'],
    ['TERMINATED', 'idle', 'terminated'],
    ['TIMED_OUT', undefined, 'timed_out'],
    ['FAILED', 'running', 'failed'],
  ])('is the execution status of a closed workflow (%s) whatever ArborStatus says (%s)', (execution, arbor, expected) => {
    expect(listedStatus(execution, arbor)).toBe(expected);
  });

  it.each([
    ['running', 'running'],
    ['waiting_for_user', 'waiting_for_user'],
    [undefined, 'idle'],
    ['completed', 'idle'],
  ])('is the ArborStatus (%s) of a running workflow, or idle when it names no open state', (arbor, expected) => {
    expect(listedStatus('RUNNING', arbor)).toBe(expected);
  });
});
