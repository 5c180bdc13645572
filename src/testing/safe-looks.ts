import type { Client } from '@temporalio/client';

/**
 * On Temporal's time-skipping test server a query that meets a workflow task in flight (a continue-as-new, say) can
 * go unanswered and leave the server's time skipping locked, so every later sleep waits in real time. The kit asks a
 * query only when `describe()` shows no workflow task to come, and waits (briefly, in real time) otherwise.
 */
export async function whenNoWorkflowTask(client: Client, workflowId: string, deadline: number): Promise<'ready' | 'closed'> {
  const workflow = client.workflow.getHandle(workflowId);
  for (;;) {
    const description = await workflow.describe();
    if (description.status.name !== 'RUNNING') return 'closed';
    if (!description.raw.pendingWorkflowTask) return 'ready';
    if (Date.now() >= deadline) return 'ready';
    await pause(25);
  }
}

/**
 * Waits until a workflow has stopped moving: no workflow task to come and the same run and history length on two
 * looks apart, asking no query. Call it before skipping time, so what the session was doing is done first.
 */
export async function settled(client: Client, workflowId: string, deadline: number, lookApartMs = 200): Promise<boolean> {
  const workflow = client.workflow.getHandle(workflowId);
  let last = '';
  for (;;) {
    const description = await workflow.describe();
    if (description.status.name !== 'RUNNING') return true;
    const pending = Boolean(description.raw.pendingWorkflowTask);
    const busy = (description.raw.pendingActivities?.length ?? 0) > 0;
    const look = `${description.runId} ${description.historyLength}`;
    if (!pending && !busy && look === last) return true;
    last = pending || busy ? '' : look;
    if (Date.now() >= deadline) return false;
    await pause(lookApartMs);
  }
}

export const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
