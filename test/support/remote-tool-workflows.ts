/**
 * Workflow code for tests of the remote tool contract alone (test/e2e/python-remote-tool.test.ts): one workflow that
 * schedules a tool's activity, `tool:<name>`, on another task queue with the contract's one input object, as an
 * Arbor session does for a tool declared with defineRemoteTool, and returns what came back.
 */
import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';

export interface RemoteToolCallInput {
  name: string;
  taskQueue: string;
  call: {
    arguments: Record<string, unknown>;
    context: { session_id: string; root_session_id: string; owner: string; tool_call_id: string; idempotency_key: string };
  };
}

export type RemoteToolCallOutcome =
  { ok: true; result: unknown } | { ok: false; message: string; type: string | null | undefined; nonRetryable: boolean | null | undefined };

export async function callRemoteTool(input: RemoteToolCallInput): Promise<RemoteToolCallOutcome> {
  const tools = proxyActivities<Record<string, (call: RemoteToolCallInput['call']) => Promise<unknown>>>({
    taskQueue: input.taskQueue,
    startToCloseTimeout: '30 seconds',
    scheduleToStartTimeout: '1 minute',
    retry: { initialInterval: '1 second', maximumAttempts: 3 },
  });
  try {
    return { ok: true, result: await tools[`tool:${input.name}`]!(input.call) };
  } catch (error) {
    if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) {
      return { ok: false, message: error.cause.message, type: error.cause.type, nonRetryable: error.cause.nonRetryable };
    }
    throw error;
  }
}
