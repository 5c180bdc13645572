import { workflowTaskUnderWay } from '../client/events/workflow-task-under-way.js';
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';

/**
 * On Temporal's time-skipping test server a query that meets a workflow task in flight (a continue-as-new, say) can
 * go unanswered and leave the server's time skipping locked, so every later sleep waits in real time. The kit asks a
 * query only when no workflow task is to come (see `workflowTaskInFlight`), and waits (briefly, in real time) otherwise.
 */
export async function whenNoWorkflowTask(client: Client, workflowId: string, deadline: number): Promise<'ready' | 'closed'> {
  const workflow = client.workflow.getHandle(workflowId);
  for (;;) {
    const description = await workflow.describe();
    if (description.status.name !== 'RUNNING') return 'closed';
    if (!(await workflowTaskInFlight(client, description))) return 'ready';
    if (Date.now() >= deadline) return 'ready';
    await pause(25);
  }
}

/**
 * Whether the workflow has a workflow task scheduled or running. A real server says so in `describe()`; the Java
 * time-skipping test server never fills `pendingWorkflowTask`, so there the run's history tells: its last event is a
 * workflow task scheduled or started (or one that failed or timed out, which the server schedules again).
 */
export async function workflowTaskInFlight(client: Client, description: WorkflowExecutionDescription): Promise<boolean> {
  if (description.raw.pendingWorkflowTask) return true;
  const history = await client.workflow.getHandle(description.workflowId, description.runId).fetchHistory();
  return workflowTaskUnderWay(history.events?.at(-1) ?? undefined);
}

/**
 * Waits until a workflow has stopped moving: no workflow task to come, no activity running, and the same run and
 * history length on two looks apart, asking no query. Returns the look it settled on (`closed` for a workflow that
 * has ended), or undefined past the deadline. Call it before skipping time, so what the session was doing is done first.
 */
export async function settled(client: Client, workflowId: string, deadline: number, lookApartMs = 50): Promise<string | undefined> {
  const workflow = client.workflow.getHandle(workflowId);
  let last = '';
  for (;;) {
    const look = await quietLook(client, await workflow.describe());
    if (look !== undefined && (look === 'closed' || look === last)) return look;
    last = look ?? '';
    if (Date.now() >= deadline) return undefined;
    await pause(lookApartMs);
  }
}

/** The workflow's run and history length when it is quiet (`closed` once it has ended), or undefined while it moves. */
export async function quietLook(client: Client, description: WorkflowExecutionDescription): Promise<string | undefined> {
  if (description.status.name !== 'RUNNING') return 'closed';
  if ((description.raw.pendingActivities?.length ?? 0) > 0) return undefined;
  if (await workflowTaskInFlight(client, description)) return undefined;
  return `${description.runId} ${description.historyLength}`;
}

export const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
