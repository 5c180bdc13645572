import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { memoryReadQuery, memoryWriteUpdate } from '../../shared/messages.js';
import type { ToolReply } from '../../shared/tool-reply.js';
import { memoryStoreId, memoryStoreWorkflowType, type MemoryRead, type MemoryWriteRequest } from '../../shared/tools/memory.js';
import type { MemoryStoreInput } from '../../shared/workflow-types.js';
import { boundedQuery } from './query-failures.js';

/**
 * Reads and writes an owner's memories in the owner's memory workflow, starting it on the first write. Used by the
 * memory tools' activities and by the client SDK.
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

  return {
    /** Applies a write; the same update id applies once however often it is sent. */
    async write(owner: string, request: MemoryWriteRequest, updateId: string): Promise<ToolReply<unknown>> {
      for (let attempt = 0; ; attempt++) {
        try {
          return await handle(owner).executeUpdate(memoryWriteUpdate, { args: [request], updateId });
        } catch (error) {
          if (error instanceof WorkflowUpdateFailedError) return { ok: false, error: error.cause?.message ?? error.message };
          if (!(error instanceof WorkflowNotFoundError) || attempt > 0) throw error;
          await start(owner);
        }
      }
    },

    /** Runs a read; an owner without a store has no memories. */
    async read(owner: string, request: MemoryRead): Promise<unknown> {
      try {
        return await boundedQuery(client, memoryStoreId(owner), () => handle(owner).query(memoryReadQuery, request));
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
        return request.op === 'list' ? { total: 0, memories: [] } : { results: [] };
      }
    },
  };
}

export type MemoryAccess = ReturnType<typeof createMemoryAccess>;
