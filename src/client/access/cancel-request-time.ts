import type { Client } from '@temporalio/client';

/** Events read from the end of a history, per page, before giving up on finding the cancel request. */
const pageSize = 500;
const maxPages = 10;

/**
 * When the server recorded the cancel request of a session's current run (its `WorkflowExecutionCancelRequested`
 * event), in the server's clock: every session a stop of that session cancels closes after it, and one an earlier
 * call stopped closed before it. Read from the end of the history, where a stop has just written it. Undefined when the
 * history does not say (a server without the reverse history API, such as the time-skipping test server).
 */
export async function cancelRequestedAt(client: Client, sessionId: string): Promise<number | undefined> {
  let nextPageToken: Uint8Array | undefined;
  try {
    for (let page = 0; page < maxPages; page++) {
      const response = await client.workflowService.getWorkflowExecutionHistoryReverse({
        namespace: client.options.namespace,
        execution: { workflowId: sessionId },
        maximumPageSize: pageSize,
        ...(nextPageToken ? { nextPageToken } : {}),
      });
      for (const event of response.history?.events ?? []) {
        if (!event.workflowExecutionCancelRequestedEventAttributes) continue;
        const seconds = Number(event.eventTime?.seconds ?? 0);
        return seconds * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6);
      }
      if (!response.nextPageToken || response.nextPageToken.length === 0) return undefined;
      nextPageToken = response.nextPageToken;
    }
  } catch {
    return undefined;
  }
  return undefined;
}
