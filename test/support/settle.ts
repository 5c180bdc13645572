import type { Client } from '@temporalio/client';
import { waitUntil } from './wait.js';

/**
 * Waits until a workflow has stopped moving: no workflow task to come, and the same run and history length on two
 * looks a second apart. It asks no query, only `describe()`: on the Java time-skipping test server a query that meets
 * a workflow task in flight (a continue-as-new, say) can go unanswered and leave the server's time skipping locked
 * for good, so every later `env.sleep` there waits in real time. Call it before such a sleep instead of polling a
 * snapshot.
 */
export async function waitUntilSettled(client: Client, workflowId: string, timeoutMs = 30_000): Promise<void> {
  const workflow = client.workflow.getHandle(workflowId);
  let last = '';
  await waitUntil(async () => {
    const description = await workflow.describe();
    const pending = description.raw.pendingWorkflowTask ? 'pending' : 'done';
    const look = `${description.runId} ${description.historyLength} ${pending}`;
    const settled = look === last && pending === 'done';
    last = look;
    if (!settled) await new Promise((resolve) => setTimeout(resolve, 1_000));
    return settled;
  }, timeoutMs);
}

/**
 * Waits until a workflow's current run has started a durable timer and has no workflow task to come, reading its
 * history and `describe()`, never a query (see `waitUntilSettled`). Then a query meets no workflow task in flight.
 */
export async function waitUntilTimerStarted(client: Client, workflowId: string, timeoutMs = 30_000): Promise<void> {
  const workflow = client.workflow.getHandle(workflowId);
  await waitUntil(async () => {
    const events = (await workflow.fetchHistory()).events ?? [];
    if (!events.some((event) => event.timerStartedEventAttributes)) return false;
    return !(await workflow.describe()).raw.pendingWorkflowTask;
  }, timeoutMs);
}
