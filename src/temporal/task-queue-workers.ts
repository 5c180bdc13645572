import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';

const { TaskQueueKind, TaskQueueType } = proto.temporal.api.enums.v1;

/** A worker that has polled a task queue recently (the server remembers pollers for a few minutes after they stop). */
export interface PollingWorker {
  /** The worker's identity: by default `pid@host`. */
  identity: string;
  /** How long ago it last polled; a worker that is running polls again within a minute. */
  last_seen_seconds_ago: number | null;
}

/** The workers that poll `taskQueue` for workflow tasks, as the server saw them. */
export async function workersPolling(client: Client, taskQueue: string): Promise<PollingWorker[]> {
  const response = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  const now = Date.now();
  return response.pollers.map((poller) => {
    const seen = poller.lastAccessTime;
    const seenMs = seen ? toNumber(seen.seconds) * 1000 + Math.floor((seen.nanos ?? 0) / 1e6) : undefined;
    return {
      identity: poller.identity ?? '',
      last_seen_seconds_ago: seenMs === undefined ? null : Math.max(0, Math.round((now - seenMs) / 1000)),
    };
  });
}

function toNumber(value: number | { toNumber(): number } | null | undefined): number {
  if (value === null || value === undefined) return 0;
  return typeof value === 'number' ? value : value.toNumber();
}
