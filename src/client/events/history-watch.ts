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
  /** The last page of the run has been read: it has closed. */
  private ended = false;
  private ahead: ReturnType<HistoryWatch['fetch']> | undefined;
  /** The events the last 'changed' brought, in history order. */
  events: proto.temporal.api.history.v1.IHistoryEvent[] = [];

  /** Watches one run: a continue-as-new closes it, and the reader starts a watch on the next run. */
  constructor(
    private readonly client: Client,
    private readonly workflowId: string,
    readonly runId: string,
  ) {}

  /**
   * Starts reading the pages already written now, each as the one before it arrives (a full page means more are
   * written), so a reader catching up on a long history waits about one round trip, not one per page. Those calls
   * return at once; only the call at the history's end waits, and that one is issued by `next`.
   */
  prefetch(signal?: AbortSignal): void {
    this.ahead ??= this.catchUp(signal);
  }

  /** Resolves when the history has grown since the last call ('changed'), or when the run has ended ('closed'). */
  async next(signal?: AbortSignal): Promise<'changed' | 'closed'> {
    for (;;) {
      // A long poll of a running workflow always hands back a page token; a page without one is a closed run's last.
      // Asking again without a token would read the closed run from its first event, as a change, for ever.
      if (this.ended) return 'closed';
      const response = await (this.ahead ? untilAborted(this.ahead, signal) : this.fetch(signal));
      this.ahead = undefined;
      const events = response.history?.events ?? [];
      this.nextPageToken = response.nextPageToken && response.nextPageToken.length > 0 ? response.nextPageToken : undefined;
      if (!this.nextPageToken) this.ended = true;
      if (events.length === historyPageSize && this.nextPageToken) this.ahead = this.fetch(signal);
      if (events.length > 0) {
        this.events = events;
        return 'changed';
      }
    }
  }

  /** The pages already written, as one response: each next page asked as soon as a full one arrives. */
  private catchUp(signal: AbortSignal | undefined): ReturnType<HistoryWatch['fetch']> {
    const caughtUp = (async () => {
      const events: NonNullable<Awaited<ReturnType<HistoryWatch['fetch']>>['history']>['events'] = [];
      let response = await this.fetch(signal);
      for (;;) {
        events.push(...(response.history?.events ?? []));
        const token = response.nextPageToken && response.nextPageToken.length > 0 ? response.nextPageToken : undefined;
        if (!token || (response.history?.events?.length ?? 0) < historyPageSize) return { ...response, history: { events } };
        this.nextPageToken = token;
        response = await this.fetch(signal);
      }
    })();
    caughtUp.catch(() => {});
    return caughtUp as ReturnType<HistoryWatch['fetch']>;
  }

  private fetch(signal: AbortSignal | undefined) {
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
    const response = abortableCall(this.client, signal, request);
    // A call read ahead that the reader never awaits (it stopped) must not be an unhandled rejection.
    response.catch(() => {});
    return response;
  }
}

/** A call read ahead under another signal, given up (not cancelled) when this caller's signal aborts. */
function untilAborted<T>(call: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return call;
  if (signal.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal.addEventListener('abort', abort, { once: true });
    call.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
