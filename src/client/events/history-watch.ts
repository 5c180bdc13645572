import type { Client } from '@temporalio/client';
import type proto from '@temporalio/proto';
import { abortableCall } from './abortable-call.js';

const historyPageSize = 256;

/**
 * Wakes a reader when a workflow's history grows, with the server's long poll on history (`waitNewEvent`): no
 * busy polling, and nothing written to the watched workflow. Every change a session makes completes a workflow task,
 * which appends events, so a wake-up follows every new session event.
 */
export class HistoryWatch {
  private nextPageToken: Uint8Array | undefined;
  /** The events the last 'changed' brought, in history order. */
  events: proto.temporal.api.history.v1.IHistoryEvent[] = [];

  /** Watches one run: a continue-as-new closes it, and the reader starts a watch on the next run. */
  constructor(
    private readonly client: Client,
    private readonly workflowId: string,
    readonly runId: string,
  ) {}

  /** Resolves when the history has grown since the last call ('changed'), or when the run has ended ('closed'). */
  async next(signal?: AbortSignal): Promise<'changed' | 'closed'> {
    for (;;) {
      const request = () =>
        this.client.workflowService.getWorkflowExecutionHistory({
          namespace: this.client.options.namespace,
          execution: { workflowId: this.workflowId, runId: this.runId },
          waitNewEvent: true,
          skipArchival: true,
          // The server's largest page; asking more only logs a warning on the server for every call.
          maximumPageSize: historyPageSize,
          ...(this.nextPageToken ? { nextPageToken: this.nextPageToken } : {}),
        });
      const response = await abortableCall(this.client, signal, request);
      const events = response.history?.events ?? [];
      this.nextPageToken = response.nextPageToken && response.nextPageToken.length > 0 ? response.nextPageToken : undefined;
      if (events.length > 0) {
        this.events = events;
        return 'changed';
      }
      if (!this.nextPageToken) return 'closed';
    }
  }
}
