import type { SessionInput, SessionResult } from './session.js';
import type { ToolReply } from './tool-reply.js';
import type { MemoryRecord } from './tools/memory.js';

/**
 * The signatures of Arbor's workflows, for the Node side to start and signal them with (`workflow.start<SessionWorkflow>`)
 * without importing workflow code. Each workflow function is checked against its type with `satisfies`, so the two
 * cannot drift.
 */
export type SessionWorkflow = (input: SessionInput) => Promise<SessionResult>;

export type MemoryStoreWorkflow = (input: MemoryStoreInput) => Promise<void>;

/** A memory store's memories, carried across continue-as-new. */
export interface CarriedMemories {
  memories: MemoryRecord[];
  next_id: number;
}

export interface MemoryStoreInput {
  owner: string;
  carried?: CarriedMemories;
  /** Replies to the latest writes by update id (absent in runs from before it was carried). */
  recent_writes?: [string, ToolReply<unknown>][];
}
