import { condition, isCancellation, sleep } from '@temporalio/workflow';
import type { SessionState } from './session-state.js';

/**
 * Fires the session's loops on durable timers: sleeps until the next firing or expiry (waking early when a loop is
 * created, paused, resumed or ended), then queues each due firing in the inbox, where it waits for any running turn.
 * With no active loop it waits without a timer, so sessions without loops record nothing.
 */
export async function runLoopClock(state: SessionState): Promise<void> {
  try {
    for (;;) {
      const version = state.loops.version;
      const changed = () => state.loops.version !== version;
      const wake = state.loops.nextWake();
      if (wake === undefined) {
        await condition(changed);
        continue;
      }
      const delay = wake - Date.now();
      if (delay > 0 && (await condition(changed, delay))) continue;
      for (const message of state.loops.fireDue()) state.enqueue(message);
      // Should nothing have been due after all, do not spin.
      if (!changed()) await sleep(1_000);
    }
  } catch (error) {
    if (!isCancellation(error)) throw error;
  }
}
