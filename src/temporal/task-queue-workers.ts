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

/**
 * How many partitions a task queue is read from unless the server is configured otherwise
 * (`matching.numTaskqueueReadPartitions`, 4 by default). A poll lands on any of them, and the server describes one
 * partition at a time.
 */
export const defaultTaskQueuePartitions = 4;

/**
 * The workers that poll `taskQueue` for workflow tasks, as the server saw them on every partition of the queue (the
 * root partition is the queue's own name, the others `/_sys/<name>/<n>`), each worker once, at its latest poll.
 */
export async function workersPolling(
  client: Client,
  taskQueue: string,
  partitions = Number(process.env.ARBOR_TASK_QUEUE_PARTITIONS) || defaultTaskQueuePartitions,
): Promise<PollingWorker[]> {
  const names = [taskQueue, ...Array.from({ length: Math.max(0, partitions - 1) }, (_, index) => `/_sys/${taskQueue}/${index + 1}`)];
  const described = await Promise.all(
    names.map((name, index) =>
      client.workflowService
        .describeTaskQueue({
          namespace: client.options.namespace,
          taskQueue: { name, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
          taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        })
        // The root partition's answer is the one that counts: a server with fewer partitions may refuse the others.
        .catch((error: unknown) => {
          if (index === 0) throw error;
          return { pollers: [] };
        }),
    ),
  );
  const now = Date.now();
  const latest = new Map<string, PollingWorker>();
  for (const poller of described.flatMap((response) => response.pollers)) {
    const seen = poller.lastAccessTime;
    const seenMs = seen ? toNumber(seen.seconds) * 1000 + Math.floor((seen.nanos ?? 0) / 1e6) : undefined;
    const worker = {
      identity: poller.identity ?? '',
      last_seen_seconds_ago: seenMs === undefined ? null : Math.max(0, Math.round((now - seenMs) / 1000)),
    };
    const known = latest.get(worker.identity);
    if (!known || (worker.last_seen_seconds_ago ?? Infinity) < (known.last_seen_seconds_ago ?? Infinity))
      latest.set(worker.identity, worker);
  }
  return [...latest.values()];
}

function toNumber(value: number | { toNumber(): number } | null | undefined): number {
  if (value === null || value === undefined) return 0;
  return typeof value === 'number' ? value : value.toNumber();
}
