import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { ArborClientError } from './errors.js';
import { checkOwner, parseClientInput } from './input.js';
import { createMemoryAccess } from './access/memory.js';
import type { MemoryStoreAccess } from './access/memory-stores.js';
import type { ToolReply } from '../shared/tool-reply.js';
import { deleteMemory, listMemories, saveMemory, searchMemory, updateMemory, type MemoryRecord } from '../shared/tools/memory.js';

/** Where memories written from outside a session say they came from. */
const clientWriter = 'client';

/** One owner's memories, from outside any session: what their sessions saved, and the same operations the tools have. */
export class MemoryHandle {
  private readonly access: Omit<MemoryStoreAccess, 'close'>;

  /** `access`: the store to use (ArborClient.memories() gives its own); default: the owner's memory workflow. */
  constructor(
    readonly owner: string,
    client: Client,
    taskQueue: string,
    access?: MemoryStoreAccess,
  ) {
    checkOwner(owner);
    this.access = access ?? createMemoryAccess(client, taskQueue);
  }

  /** Newest first, optionally only those with a tag. */
  async list(options: { tag?: string; limit?: number } = {}): Promise<{ total: number; memories: MemoryRecord[] }> {
    const args = parseClientInput(listMemories.input, options);
    return (await this.access.read(this.owner, { op: 'list', args })) as { total: number; memories: MemoryRecord[] };
  }

  /** Ranked by relevance (BM25 over content and tags, or PostgreSQL's ts_rank), best first, each with its score. */
  async search(query: string, options: { limit?: number } = {}): Promise<(MemoryRecord & { score: number })[]> {
    const args = parseClientInput(searchMemory.input, { query, ...options });
    return ((await this.access.read(this.owner, { op: 'search', args })) as { results: (MemoryRecord & { score: number })[] }).results;
  }

  async save(content: string, options: { tags?: string[] } = {}): Promise<string> {
    const args = parseClientInput(saveMemory.input, { content, ...options });
    return (
      unwrap(await this.access.write(this.owner, { op: 'save', args, session_id: clientWriter }, randomUUID())) as { memory_id: string }
    ).memory_id;
  }

  async update(memoryId: string, change: { content?: string; tags?: string[] }): Promise<void> {
    const args = parseClientInput(updateMemory.input, { memory_id: memoryId, ...change });
    unwrap(await this.access.write(this.owner, { op: 'update', args, session_id: clientWriter }, randomUUID()));
  }

  async delete(memoryId: string): Promise<void> {
    const args = parseClientInput(deleteMemory.input, { memory_id: memoryId });
    unwrap(await this.access.write(this.owner, { op: 'delete', args, session_id: clientWriter }, randomUUID()));
  }
}

function unwrap(reply: ToolReply<unknown>): unknown {
  if (!reply.ok) throw new ArborClientError(reply.error);
  return reply.result;
}
