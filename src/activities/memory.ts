import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { createMemoryAccess } from '../client/access/memory.js';
import type { ToolReply } from '../shared/tool-reply.js';
import type { MemoryRead, MemoryWriteRequest } from '../shared/tools/memory.js';

export interface MemoryWriteCall {
  owner: string;
  /** Fixed per tool call, so a retried activity writes once. */
  update_id: string;
  request: MemoryWriteRequest;
}

/** The memory tools' activities: they reach the owner's memory workflow on the worker's own task queue. */
export function createMemoryActivities(client: Client) {
  const access = () => createMemoryAccess(client, Context.current().info.taskQueue);
  return {
    async writeMemory({ owner, update_id, request }: MemoryWriteCall): Promise<ToolReply<unknown>> {
      return access().write(owner, request, update_id);
    },
    async readMemory({ owner, request }: { owner: string; request: MemoryRead }): Promise<ToolReply<unknown>> {
      return { ok: true, result: await access().read(owner, request) };
    },
  };
}
