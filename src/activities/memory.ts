import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { createMemoryAccess, type MemoryAccess } from '../client/access/memory.js';
import type { MemoryStoreAccess } from '../client/access/memory-stores.js';
import type { ToolReply } from '../shared/tool-reply.js';
import type { MemoryRead, MemoryWriteRequest } from '../shared/tools/memory.js';
import { completeLater } from './complete-later.js';

export interface MemoryWriteCall {
  owner: string;
  /** Fixed per tool call, so a retried activity writes once. */
  update_id: string;
  request: MemoryWriteRequest;
}

export interface MemoryWriteSettlement {
  owner: string;
  /** The update_id of the write given up on. */
  update_id: string;
  reason: string;
}

/**
 * The memory tools' activities. With no database they reach the owner's memory workflow on the worker's own task
 * queue: writes are gathered per owner into batches by one access per task queue, and complete asynchronously (see
 * completeLater). With a database (`database`, the PostgreSQL store) each write is one transaction, answered at once.
 */
export function createMemoryActivities(client: Client, database?: MemoryStoreAccess) {
  const accesses = new Map<string, MemoryAccess>();
  const access = () => {
    const { taskQueue } = Context.current().info;
    let found = accesses.get(taskQueue);
    if (!found) accesses.set(taskQueue, (found = createMemoryAccess(client, taskQueue)));
    return found;
  };
  return {
    async writeMemory({ owner, update_id, request }: MemoryWriteCall): Promise<ToolReply<unknown>> {
      if (database) return database.write(owner, request, update_id);
      return completeLater(client, access().write(owner, request, update_id));
    },
    /** Whether a write whose activity failed was applied after all; if not, it never will be. */
    async settleMemoryWrite({ owner, update_id, reason }: MemoryWriteSettlement): Promise<ToolReply<unknown>> {
      if (database) return database.abandon(owner, update_id, reason);
      return completeLater(client, access().abandon(owner, update_id, reason));
    },
    async readMemory({ owner, request }: { owner: string; request: MemoryRead }): Promise<ToolReply<unknown>> {
      return { ok: true, result: await (database ?? access()).read(owner, request) };
    },
  };
}
