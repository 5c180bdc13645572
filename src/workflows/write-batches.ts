import type { ToolReply } from '../shared/tool-reply.js';
import { isAbandoned, notAppliedError, type WriteBatch, type WriteBatchReply } from '../shared/write-batches.js';
import type { RecentReplies } from './recent-replies.js';

/**
 * Applies a batch of keyed writes in order. A key seen before is answered with its recorded reply and not applied
 * again; an abandoned key not seen before is recorded as not applied, so a copy of it arriving later is refused.
 * `remember` says which replies to record (reads need not be).
 */
export function applyWriteBatch<Request>(
  batch: WriteBatch<Request>,
  recent: RecentReplies<ToolReply<unknown>>,
  apply: (request: Request) => ToolReply<unknown>,
  remember: (request: Request) => boolean = () => true,
): WriteBatchReply {
  const replies = batch.writes.map((write) => {
    const earlier = recent.earlier(write.key);
    if (earlier) return earlier;
    if (isAbandoned(write)) return recent.keep(write.key, { ok: false, error: notAppliedError(String(write.reason)) });
    const reply = apply(write.request);
    return remember(write.request) ? recent.keep(write.key, reply) : reply;
  });
  return { replies };
}
