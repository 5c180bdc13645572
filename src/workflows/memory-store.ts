import MiniSearch from 'minisearch';
import type { ToolReply } from '../shared/tool-reply.js';
import {
  fullMemoryStoreError,
  maxMemoriesPerOwner,
  unknownMemoryError,
  type MemoryRead,
  type MemoryRecord,
  type MemoryWriteRequest,
} from '../shared/tools/memory.js';
import type { CarriedMemories } from '../shared/workflow-types.js';

/**
 * One owner's memories, kept by the owner's memory workflow. Writes arrive one at a time (updates), so concurrent
 * saves from many sessions are all kept; reads (queries) rank with MiniSearch's BM25. Pure: no Temporal calls.
 */
export class MemoryStore {
  memories: MemoryRecord[];
  private nextId: number;
  private index: MiniSearch<MemoryRecord> | undefined;

  constructor(
    private readonly now: () => Date,
    carried?: CarriedMemories,
  ) {
    this.memories = carried?.memories ?? [];
    this.nextId = carried?.next_id ?? 1;
  }

  write(request: MemoryWriteRequest): ToolReply<unknown> {
    const now = this.now().toISOString();
    switch (request.op) {
      case 'save': {
        if (this.memories.length >= maxMemoriesPerOwner) {
          return { ok: false, error: fullMemoryStoreError(maxMemoriesPerOwner) };
        }
        const memory: MemoryRecord = {
          memory_id: `mem-${this.nextId++}`,
          content: request.args.content,
          tags: unique(request.args.tags ?? []),
          created_at: now,
          updated_at: now,
          session_id: request.session_id,
          updated_by: request.session_id,
        };
        this.memories.push(memory);
        this.index = undefined;
        return { ok: true, result: { memory_id: memory.memory_id, saved: true } };
      }
      case 'update': {
        const memory = this.find(request.args.memory_id);
        if (!memory) return { ok: false, error: unknownMemoryError(request.args.memory_id) };
        const updated: string[] = [];
        if (request.args.content !== undefined && request.args.content !== memory.content) {
          memory.content = request.args.content;
          updated.push('content');
        }
        if (request.args.tags !== undefined && JSON.stringify(unique(request.args.tags)) !== JSON.stringify(memory.tags)) {
          memory.tags = unique(request.args.tags);
          updated.push('tags');
        }
        if (updated.length > 0) {
          memory.updated_at = now;
          memory.updated_by = request.session_id;
          this.index = undefined;
        }
        return { ok: true, result: { memory_id: memory.memory_id, updated_fields: updated } };
      }
      case 'delete': {
        const memory = this.find(request.args.memory_id);
        if (!memory) return { ok: false, error: unknownMemoryError(request.args.memory_id) };
        this.memories = this.memories.filter((other) => other !== memory);
        this.index = undefined;
        return { ok: true, result: { memory_id: memory.memory_id, deleted: true } };
      }
    }
  }

  read(request: MemoryRead): unknown {
    if (request.op === 'list') {
      const matching = request.args.tag ? this.memories.filter((memory) => memory.tags.includes(request.args.tag!)) : this.memories;
      return { total: matching.length, memories: newestFirst(matching).slice(0, request.args.limit) };
    }
    const hits = this.searchIndex().search(request.args.query, { prefix: true, fuzzy: 0.2, boost: { tags: 2 }, combineWith: 'OR' });
    return {
      results: hits
        .slice(0, request.args.limit)
        .map((hit) => ({ ...this.find(hit.id as string)!, score: Math.round(hit.score * 1000) / 1000 })),
    };
  }

  carry(): CarriedMemories {
    return { memories: this.memories, next_id: this.nextId };
  }

  private searchIndex(): MiniSearch<MemoryRecord> {
    if (!this.index) {
      this.index = new MiniSearch<MemoryRecord>({
        idField: 'memory_id',
        fields: ['content', 'tags'],
        extractField: (memory, field) => (field === 'tags' ? memory.tags.join(' ') : (memory as unknown as Record<string, string>)[field]!),
      });
      this.index.addAll(this.memories);
    }
    return this.index;
  }

  private find(id: string): MemoryRecord | undefined {
    return this.memories.find((memory) => memory.memory_id === id);
  }
}

function unique(tags: string[]): string[] {
  return [...new Set(tags)];
}

function newestFirst(memories: MemoryRecord[]): MemoryRecord[] {
  const sequence = (memory: MemoryRecord) => Number(memory.memory_id.slice('mem-'.length));
  return [...memories].sort((a, b) => b.created_at.localeCompare(a.created_at) || sequence(b) - sequence(a));
}
