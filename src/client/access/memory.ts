import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { memoryReadQuery, memoryWritesUpdate } from '../../shared/messages.js';
import type { ToolReply } from '../../shared/tool-reply.js';
import { memoryStoreId, memoryStoreWorkflowType, type MemoryRead, type MemoryWriteRequest } from '../../shared/tools/memory.js';
import type { MemoryStoreInput } from '../../shared/workflow-types.js';
import { refuseBatch, type BatchedWrite } from '../../shared/write-batches.js';
import { boundedQuery } from './query-failures.js';
import { WriteBatcher } from './write-batcher.js';

/**
 * Reads and writes an owner's memories in the owner's memory workflow, starting it on the first write. Used by the
 * memory tools' activities and by the client SDK. Writes go in batches (see WriteBatcher), one in flight per owner.
 */
export function createMemoryAccess(client: Client, taskQueue: string) {
  const handle = (owner: string) => client.workflow.getHandle(memoryStoreId(owner));

  async function start(owner: string): Promise<void> {
    try {
      await client.workflow.start(memoryStoreWorkflowType, {
        workflowId: memoryStoreId(owner),
        taskQueue,
        args: [{ owner } satisfies MemoryStoreInput],
        staticSummary: `memories of ${owner}`,
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }

  async function sendBatch(owner: string, writes: BatchedWrite<MemoryWriteRequest>[], batchId: string): Promise<ToolReply<unknown>[]> {
    for (let attempt = 0; ; attempt++) {
      try {
        return (await handle(owner).executeUpdate(memoryWritesUpdate, { args: [{ writes }], updateId: batchId })).replies;
      } catch (error) {
        // Refused by the store's validator (or by a store run by a worker older than batches): nothing was applied.
        if (error instanceof WorkflowUpdateFailedError) {
          const reason = error.cause?.message ?? error.message;
          return refuseBatch({ writes }, reason).replies;
        }
        if (!(error instanceof WorkflowNotFoundError) || attempt > 0) throw error;
        await start(owner);
      }
    }
  }

  const batcher = new WriteBatcher(sendBatch);

  return {
    /** Applies a write; the same key applies once however often, and in whichever batch, it is sent. */
    write(owner: string, request: MemoryWriteRequest, key: string): Promise<ToolReply<unknown>> {
      return batcher.submit(owner, { key, request });
    },

    /** The reply to a write its sender gave up on, if it was applied; else a refusal, and it never will be applied. */
    abandon(owner: string, key: string, reason: string): Promise<ToolReply<unknown>> {
      return batcher.submit(owner, { key, abandon: true, reason });
    },

    /** Runs a read; an owner without a store has no memories. */
    async read(owner: string, request: MemoryRead): Promise<unknown> {
      try {
        // Every session of an owner reads its store: their reads go side by side, not one at a time.
        return await boundedQuery(client, memoryStoreId(owner), () => handle(owner).query(memoryReadQuery, request), undefined, {
          oneAtATime: false,
        });
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
        return request.op === 'list' ? { total: 0, memories: [] } : { results: [] };
      }
    },
  };
}

export type MemoryAccess = ReturnType<typeof createMemoryAccess>;
