import { log } from '@temporalio/activity';
import {
  maxStreamBatchesPerCall,
  streamBatchesAtFullRate,
  streamBatchIntervalMaxMs,
  streamBatchIntervalMs,
  type StreamItemBody,
} from '../shared/stream.js';

/**
 * Gathers what a streamed model call writes and sends it in batches: the first item at once (time to first word),
 * then at most one batch per interval (widening after `streamBatchesAtFullRate` sends, and none after
 * `maxStreamBatchesPerCall` until `close()`), one send at a time and in order. Adjacent text deltas merge into one item.
 * Sending is best effort: the completed reply is what the session keeps, so a failed send is logged, not thrown.
 */
export class StreamBatcher {
  private pending: StreamItemBody[] = [];
  private sending: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastSentAt: number | undefined;
  private sends = 0;

  constructor(
    private readonly send: (items: StreamItemBody[]) => Promise<void>,
    private readonly intervalMs = streamBatchIntervalMs,
  ) {}

  add(item: StreamItemBody): void {
    const last = this.pending.at(-1);
    if (item.type === 'text_delta' && last?.type === 'text_delta' && last.round === item.round && last.attempt === item.attempt) {
      last.text += item.text;
    } else {
      this.pending.push(item.type === 'text_delta' ? { ...item } : item);
    }
    this.schedule();
  }

  /** Sends what is left and waits for every send to end. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.sending) await this.sending;
    if (this.pending.length > 0) await this.flush();
  }

  private schedule(): void {
    if (this.timer || this.sending || this.sends >= maxStreamBatchesPerCall) return;
    const wait = this.lastSentAt === undefined ? 0 : this.lastSentAt + this.currentIntervalMs() - Date.now();
    if (wait <= 0) void this.flush();
    else this.timer = setTimeout(() => ((this.timer = undefined), void this.flush()), wait);
  }

  private currentIntervalMs(): number {
    const widenings = Math.max(0, this.sends - streamBatchesAtFullRate);
    return Math.min(streamBatchIntervalMaxMs, this.intervalMs * 1.1 ** widenings);
  }

  private flush(): Promise<void> {
    const items = this.pending.splice(0);
    if (items.length === 0) return Promise.resolve();
    this.lastSentAt = Date.now();
    this.sends += 1;
    const sending = this.send(items)
      .catch((error: unknown) => log.warn('could not send streamed model output to the session', { error: String(error) }))
      .finally(() => {
        this.sending = undefined;
        if (this.pending.length > 0) this.schedule();
      });
    this.sending = sending;
    return sending;
  }
}
