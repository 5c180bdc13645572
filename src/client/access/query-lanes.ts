import type { Client } from '@temporalio/client';

/** How long a query waits for the one before it to the same workflow before it is sent all the same. */
export const queryLaneReleaseMs = 2_000;

/** The clients told to send queries one at a time, each with the last query it sent every workflow. */
const lanes = new WeakMap<Client, Map<string, Promise<void>>>();

/**
 * Makes `client` send each workflow's queries one at a time from now on (the console's server does: its feed's readers
 * and its views read the same sessions at once). Other clients send them side by side, as before: a reader of a
 * session's events and of its stream (`arbor chat`, `arbor run`) prints a turn's tool calls in step with its text.
 */
export function sendQueriesOneAtATime(client: Client): void {
  if (!lanes.has(client)) lanes.set(client, new Map());
}

/**
 * For a client told to (`sendQueriesOneAtATime`), runs `query` once the queries it sent the same workflow before it have been answered (or
 * `queryLaneReleaseMs` has passed): one query at a time per workflow. Queries that reach a workflow at once while
 * one of its workflow tasks is in flight are answered one at once and the others late, 1.4 to 2 s on the dev server
 * (measured: five at once during a turn, 86 of 200 late; the same five one after another, or at once while the
 * session idles, none late), and now and then one is not answered at all. The release bounds what a workflow that
 * answers nothing (no worker) costs the queries behind it.
 */
export function inQueryLane<T>(client: Client, workflowId: string, query: () => Promise<T>, releaseMs = queryLaneReleaseMs): Promise<T> {
  const byWorkflow = lanes.get(client);
  if (!byWorkflow) return query();
  const before = byWorkflow.get(workflowId);
  const turn = before ? released(before, releaseMs) : Promise.resolve();
  const answered = turn.then(query);
  const done = answered.then(
    () => undefined,
    () => undefined,
  );
  byWorkflow.set(workflowId, done);
  void done.then(() => {
    if (byWorkflow.get(workflowId) === done) byWorkflow.delete(workflowId);
  });
  return answered;
}

function released(before: Promise<void>, releaseMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, releaseMs);
    timer.unref();
  });
  return Promise.race([before, late]).finally(() => clearTimeout(timer));
}
