import { randomUUID } from 'node:crypto';
import { WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import type { ToolReply } from '../../shared/tool-reply.js';
import { maxWritesPerBatch, type BatchedWrite } from '../../shared/write-batches.js';

/**
 * Sends one batch to the workflow a target names and returns a reply per write, in order. `batchId` is the same each
 * time one batch is sent again, so it can serve as the update id.
 */
export type SendBatch<Request> = (target: string, writes: BatchedWrite<Request>[], batchId: string) => Promise<ToolReply<unknown>[]>;

export interface WriteBatcherOptions {
  /** Writes per batch (default and most: 100). */
  maxWrites?: number;
  /** Encoded size of one batch's writes before it is cut (default 512 KiB, a quarter of Temporal's payload limit). */
  maxBytes?: number;
  /** How long a batch is sent again while the server pushes back or is unreachable (default 2 minutes). */
  retryForMs?: number;
}

interface Pending<Request> {
  write: BatchedWrite<Request>;
  bytes: number;
  waiters: { resolve: (reply: ToolReply<unknown>) => void; reject: (error: unknown) => void }[];
}

interface Lane<Request> {
  queue: Pending<Request>[];
  byKey: Map<string, Pending<Request>>;
  sending: boolean;
}

/**
 * Gathers the writes this process sends to each workflow (a target: an owner, a root session) and sends them one batch
 * at a time per workflow: a burst of
 * hundreds of writes becomes a few updates in flight instead of hundreds, under Temporal's limit of ten per workflow.
 * A write whose key is already waiting or being sent (an activity retried on this worker) joins that write instead of
 * being sent twice. A batch the server refuses for load (`RESOURCE_EXHAUSTED`), or that cannot reach it, is sent
 * again after a growing pause: the workflow answers a key it has seen from its record, so sending again is safe.
 */
export class WriteBatcher<Request> {
  private readonly lanes = new Map<string, Lane<Request>>();
  private readonly maxWrites: number;
  private readonly maxBytes: number;
  private readonly retryForMs: number;

  constructor(
    private readonly send: SendBatch<Request>,
    options: WriteBatcherOptions = {},
  ) {
    this.maxWrites = Math.min(options.maxWrites ?? maxWritesPerBatch, maxWritesPerBatch);
    this.maxBytes = options.maxBytes ?? 512 * 1024;
    this.retryForMs = options.retryForMs ?? 120_000;
  }

  /** The reply to this write, once the batch holding it has been applied. */
  submit(target: string, write: BatchedWrite<Request>): Promise<ToolReply<unknown>> {
    const lane = this.laneOf(target);
    return new Promise((resolve, reject) => {
      const waiting = lane.byKey.get(write.key);
      if (waiting) {
        waiting.waiters.push({ resolve, reject });
        return;
      }
      const pending: Pending<Request> = { write, bytes: JSON.stringify(write).length, waiters: [{ resolve, reject }] };
      lane.byKey.set(write.key, pending);
      lane.queue.push(pending);
      if (!lane.sending) void this.drain(target, lane);
    });
  }

  private laneOf(target: string): Lane<Request> {
    let lane = this.lanes.get(target);
    if (!lane) {
      lane = { queue: [], byKey: new Map(), sending: false };
      this.lanes.set(target, lane);
    }
    return lane;
  }

  private async drain(target: string, lane: Lane<Request>): Promise<void> {
    lane.sending = true;
    try {
      while (lane.queue.length > 0) {
        const batch = this.takeBatch(lane);
        try {
          const replies = await this.sendWithBackoff(target, batch);
          batch.forEach((pending, index) => pending.waiters.forEach((waiter) => waiter.resolve(replies[index]!)));
        } catch (error) {
          batch.forEach((pending) => pending.waiters.forEach((waiter) => waiter.reject(error)));
        } finally {
          batch.forEach((pending) => lane.byKey.delete(pending.write.key));
        }
      }
    } finally {
      lane.sending = false;
      if (lane.queue.length === 0) this.lanes.delete(target);
    }
  }

  private takeBatch(lane: Lane<Request>): Pending<Request>[] {
    const batch: Pending<Request>[] = [];
    let bytes = 0;
    while (lane.queue.length > 0 && batch.length < this.maxWrites) {
      const next = lane.queue[0]!;
      if (batch.length > 0 && bytes + next.bytes > this.maxBytes) break;
      batch.push(lane.queue.shift()!);
      bytes += next.bytes;
    }
    return batch;
  }

  private async sendWithBackoff(target: string, batch: Pending<Request>[]): Promise<ToolReply<unknown>[]> {
    const giveUpAt = Date.now() + this.retryForMs;
    const batchId = randomUUID();
    for (let attempt = 0; ; attempt++) {
      try {
        const replies = await this.send(
          target,
          batch.map((pending) => pending.write),
          batchId,
        );
        if (replies.length !== batch.length) throw new Error(`A batch of ${batch.length} writes got ${replies.length} replies.`);
        return replies;
      } catch (error) {
        const pause = Math.min(5_000, 100 * 2 ** attempt) * (0.5 + Math.random() / 2);
        if (!isPushBack(error) || Date.now() + pause > giveUpAt) throw error;
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }
}

// gRPC status codes: DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, UNAVAILABLE.
const pushBackCodes = new Set<number>([4, 8, 14]);

/** Whether the server refused for load, or could not be reached in time: worth sending the same batch again. */
function isPushBack(error: unknown): boolean {
  for (let cause = error; cause; cause = (cause as { cause?: unknown }).cause) {
    if (cause instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return true;
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'number' && pushBackCodes.has(code)) return true;
  }
  return false;
}
