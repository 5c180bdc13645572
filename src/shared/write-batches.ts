import type { ToolReply } from './tool-reply.js';

/**
 * Writes that many sessions send to one entity workflow (an owner's memories, a tree's task board) travel in
 * batches: one update carries many writes, so a burst stays far below Temporal's limit of in-flight updates per
 * workflow. Each write has a key (fixed per tool call) that the workflow remembers with its reply, so a write sent
 * again, in any batch, is answered from that record and applied once.
 */
export interface KeyedWrite<Request> {
  key: string;
  request: Request;
}

/**
 * Settles a write whose sender gave up: if the write was applied, its reply; if not, it never will be (a copy still
 * on its way is answered with the refusal recorded here), so the caller can say truthfully that it was not applied.
 */
export interface AbandonedWrite {
  key: string;
  abandon: true;
  /** Why the sender gave up, for the refusal. */
  reason: string;
}

export type BatchedWrite<Request> = KeyedWrite<Request> | AbandonedWrite;

export interface WriteBatch<Request> {
  writes: BatchedWrite<Request>[];
}

/** One reply per write, in the batch's order. */
export interface WriteBatchReply {
  replies: ToolReply<unknown>[];
}

/** Writes in one batch: a batch of the largest memories stays well inside Temporal's payload limits. */
export const maxWritesPerBatch = 100;

export function isAbandoned<Request>(write: BatchedWrite<Request>): write is AbandonedWrite {
  return (write as AbandonedWrite).abandon === true;
}

/** The refusal recorded for an abandoned write that had not been applied. */
export function notAppliedError(reason: string): string {
  return `This write was not applied, and will not be: ${reason}`;
}

/** The same refusal for every write a batch holds (a malformed batch holds none that can be read). */
export function refuseBatch(batch: unknown, reason: string): WriteBatchReply {
  const writes = (batch as WriteBatch<unknown> | undefined)?.writes;
  return { replies: (Array.isArray(writes) ? writes : []).map(() => ({ ok: false, error: reason })) };
}

/** Why a batch is malformed, or undefined when each write has a key and the batch is within its limit. */
export function batchShapeError(batch: unknown): string | undefined {
  const writes = (batch as WriteBatch<unknown> | undefined)?.writes;
  if (!Array.isArray(writes)) return 'A write batch is {writes: [{key, request} | {key, abandon: true, reason}]}.';
  if (writes.length === 0 || writes.length > maxWritesPerBatch) return `A write batch has 1 to ${maxWritesPerBatch} writes.`;
  const bad = writes.findIndex((write) => typeof write?.key !== 'string' || write.key.length === 0 || write.key.length > 200);
  return bad === -1 ? undefined : `Write ${bad} of the batch has no key (a string of 1 to 200 characters).`;
}
