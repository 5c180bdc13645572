import type { LoadedDataConverter } from '@temporalio/common';
import type proto from '@temporalio/proto';
import { streamDeltasSignal } from '../../shared/messages.js';
import { streamBatchItems } from '../../shared/stream-batch-items.js';
import type { StreamItem, StreamItemBody, StreamPage } from '../../shared/stream.js';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;
type Payload = proto.temporal.api.common.v1.IPayload;

/** What a history wake gives a reader: items it may yield now, and whether it must read a page of the ring. */
export interface EarlyTake {
  items: StreamItem[];
  mustRead: boolean;
}

/**
 * Numbers the `streamDeltas` batches a reader's history long poll brings before the workflow has taken them, so the
 * reader yields their text at once instead of waiting for the workflow task and a `stream` query.
 *
 * Exact by construction, not by guess: a page of the ring tells which workflow task it reflects (`history_length`, the
 * task's started event) and the ring's `last_pos`. The ring changes only in activations, and in an activation every
 * signal handler runs before any other workflow code (the SDK puts signal jobs first and runs the rest after them), so
 * the batches recorded after that event and before the next workflow task starts are the ring's next items, in
 * history order, from `last_pos + 1`; `streamBatchItems` counts them as the ring does. From the next task's start on
 * the workflow may push its own items in between, so once a task completes the reader reads a page again.
 * Pages from workers before `history_length`, of another run, or a batch this client cannot decode: no early items.
 */
export class EarlyStreamItems {
  private place: { historyLength: number; nextPos: number } | undefined;
  /** Events after the place's history length, in order. */
  private recent: HistoryEvent[] = [];
  private decoded = new Map<number, StreamItemBody[] | null>();
  /** The newest workflow task completion a page has been read after. */
  private readAfterTask = 0;

  constructor(
    private readonly sessionId: string,
    private readonly converter: LoadedDataConverter,
  ) {}

  /** After a page that left nothing unread up to its `last_pos`, read while watching `runId`'s history. */
  placeAt(page: StreamPage, runId: string): void {
    if (typeof page.history_length !== 'number' || page.run_id !== runId) return this.forget();
    this.place = { historyLength: page.history_length, nextPos: page.last_pos + 1 };
    // The page's own task completes in the event after its start: already reflected.
    this.readAfterTask = Math.max(this.readAfterTask, page.history_length + 1);
    this.recent = this.recent.filter((event) => eventId(event) > page.history_length!);
    for (const id of this.decoded.keys()) if (id <= page.history_length) this.decoded.delete(id);
  }

  /** A new run's watch: nothing known of it yet. */
  forget(): void {
    this.place = undefined;
    this.recent = [];
    this.decoded.clear();
    this.readAfterTask = 0;
  }

  /**
   * Takes a wake's events; the items it numbers have positions after `after` (those up to it were yielded). `seenFrom`:
   * the first event id from which the reader has had every event (a reader that joined a shared watch late lacks
   * earlier ones, and numbers nothing until a page's task is after them).
   */
  async take(events: HistoryEvent[], after: number, seenFrom = 1): Promise<EarlyTake> {
    const place = this.place;
    if (!place || seenFrom > place.historyLength + 1) return { items: [], mustRead: true };
    this.recent.push(...events.filter((event) => eventId(event) > place.historyLength));
    const items: StreamItem[] = [];
    let pos = place.nextPos;
    let numbering = true;
    let mustRead = false;
    for (const event of this.recent) {
      if (event.workflowTaskStartedEventAttributes) numbering = false;
      // A completed task may have changed the ring: a page read now reflects it (a failed one changed nothing).
      if (event.workflowTaskCompletedEventAttributes && eventId(event) > this.readAfterTask) {
        this.readAfterTask = eventId(event);
        mustRead = true;
      }
      if (!numbering || event.workflowExecutionSignaledEventAttributes?.signalName !== streamDeltasSignal.name) continue;
      const bodies = await this.bodiesOf(event);
      if (!bodies) {
        numbering = false;
        continue;
      }
      for (const body of bodies) {
        const item = { ...body, pos: pos++, session_id: this.sessionId } as StreamItem;
        if (item.pos > after) items.push(item);
      }
    }
    return { items, mustRead };
  }

  /** The ring's items of one recorded batch, or null when this client cannot decode it (another codec, a bad payload). */
  private async bodiesOf(event: HistoryEvent): Promise<StreamItemBody[] | null> {
    const id = eventId(event);
    if (!this.decoded.has(id)) {
      const payload = event.workflowExecutionSignaledEventAttributes?.input?.payloads?.[0];
      this.decoded.set(id, payload ? await this.decode(payload) : []);
    }
    return this.decoded.get(id)!;
  }

  private async decode(payload: Payload): Promise<StreamItemBody[] | null> {
    try {
      let payloads = [payload];
      for (const codec of [...this.converter.payloadCodecs].reverse()) payloads = await codec.decode(payloads);
      return streamBatchItems(this.converter.payloadConverter.fromPayload(payloads[0]!));
    } catch {
      return null;
    }
  }
}

function eventId(event: HistoryEvent): number {
  return Number(event.eventId ?? 0);
}
