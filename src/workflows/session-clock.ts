import { condition, isCancellation, sleep } from '@temporalio/workflow';
import type { InboxMessage } from '../shared/session.js';
import type { SessionState } from './session-state.js';
import { heldByBudget } from './session-budget.js';

/** Something that fires messages into the session at times it knows: loops and cron jobs. */
interface TimedSource {
  version: number;
  nextWake(): number | undefined;
  fireDue(): InboxMessage[];
}

/**
 * Fires the session's loops and cron jobs on durable timers: sleeps until the next firing (or expiry) of any of them,
 * waking early when one is created, paused, resumed or ended, then queues each due firing in the inbox, where it
 * waits for any running turn. With nothing scheduled it waits without a timer, so such sessions record nothing.
 */
export async function runSessionClock(state: SessionState): Promise<void> {
  const sources: TimedSource[] = [state.loops, state.crons];
  const version = () => sources.reduce((sum, source) => sum + source.version, 0);
  try {
    for (;;) {
      const seen = version();
      const changed = () => version() !== seen;
      const wakes = sources.map((source) => source.nextWake()).filter((wake): wake is number => wake !== undefined);
      if (wakes.length === 0) {
        await condition(changed);
        continue;
      }
      const delay = Math.min(...wakes) - Date.now();
      if (delay > 0 && (await condition(changed, delay))) continue;
      for (const source of sources) for (const message of source.fireDue()) if (!heldByBudget(state, message)) state.enqueue(message);
      // Should nothing have been due after all, do not spin.
      if (!changed()) await sleep(1_000);
    }
  } catch (error) {
    if (!isCancellation(error)) throw error;
  }
}
