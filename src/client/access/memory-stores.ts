import type { Client } from '@temporalio/client';
import type { ToolReply } from '../../shared/tool-reply.js';
import type { MemoryRead, MemoryWriteRequest } from '../../shared/tools/memory.js';
import { createMemoryAccess } from './memory.js';
import { checkMemoryStore, type MemoryStoreSettings } from './memory-store-settings.js';
import { PostgresMemoryStore } from './postgres-memory/store.js';

/** What the memory tools and the SDK do to an owner's memories, whichever store keeps them. */
export interface MemoryStoreAccess {
  /** Applies a write; the same key applies once however often it is sent. */
  write(owner: string, request: MemoryWriteRequest, key: string): Promise<ToolReply<unknown>>;
  /** The reply to a write its sender gave up on, if it was applied; else a refusal, and it never will be applied. */
  abandon(owner: string, key: string, reason: string): Promise<ToolReply<unknown>>;
  read(owner: string, request: MemoryRead): Promise<unknown>;
  close(): Promise<void>;
}

/** The store the settings name: the owner's memory workflow on `taskQueue`, or a PostgreSQL database. */
export function openMemoryStore(settings: MemoryStoreSettings, client: Client, taskQueue: string): MemoryStoreAccess {
  const checked = checkMemoryStore(settings);
  if (checked.kind === 'postgres') return openPostgresMemoryStore(checked);
  return { ...createMemoryAccess(client, taskQueue), close: async () => {} };
}

export function openPostgresMemoryStore(settings: Extract<MemoryStoreSettings, { kind: 'postgres' }>): PostgresMemoryStore {
  return new PostgresMemoryStore({
    databaseUrl: settings.databaseUrl,
    maxMemoriesPerOwner: settings.maxMemoriesPerOwner,
    poolSize: settings.poolSize,
  });
}
