import { z } from 'zod';
import { lazy } from '../lazy.js';
import { defineTool } from './define-tool.js';

export const maxMemoryLength = 4_000;
/** Memories per owner: the store's whole state travels through continue-as-new, which Temporal caps at 2 MB. */
export const maxMemoriesPerOwner = 250;
export const maxTags = 10;

/** The refusals both memory stores give, word for word. */
export const unknownMemoryError = (memoryId: string) => `No memory ${memoryId}; listMemories or searchMemory give the ids.`;
export const fullMemoryStoreError = (cap: number) =>
  `This user already has ${cap} memories, the most allowed: update or delete old ones first.`;

const memoryId = () => z.string().trim().min(1).max(40).describe('A memory id from saveMemory, listMemories or searchMemory');
const content = () =>
  z
    .string()
    .trim()
    .min(1, 'content is empty')
    .max(maxMemoryLength, `content is at most ${maxMemoryLength} characters`)
    .describe(`What to remember (at most ${maxMemoryLength} characters)`);
const tags = () =>
  z
    .array(z.string().trim().toLowerCase().min(1).max(50))
    .max(maxTags, `at most ${maxTags} tags`)
    .describe('Short labels to find the memory by');

export const saveMemory = defineTool({
  name: 'saveMemory',
  description:
    "Save a fact worth remembering across conversations (the user's preferences, decisions, context). Memories are " +
    "shared by all of this user's sessions. Returns the memory_id.",
  input: () => z.object({ content: content(), tags: tags().optional() }),
});

export const updateMemory = defineTool({
  name: 'updateMemory',
  destructive: true,
  description: 'Change the content and/or the tags of a saved memory.',
  input: () =>
    z
      .object({ memory_id: memoryId(), content: content().optional(), tags: tags().optional() })
      .refine((args) => args.content !== undefined || args.tags !== undefined, 'give a new content, new tags, or both'),
});

export const deleteMemory = defineTool({
  name: 'deleteMemory',
  destructive: true,
  description: 'Delete a saved memory that is wrong or no longer wanted.',
  input: () => z.object({ memory_id: memoryId() }),
});

export const listMemories = defineTool({
  name: 'listMemories',
  description: "List the user's memories, newest first, optionally only those with a tag.",
  input: () =>
    z.object({
      tag: z.string().trim().toLowerCase().min(1).max(50).optional(),
      limit: z.number().int().min(1).max(100).default(20),
    }),
});

export const searchMemory = defineTool({
  name: 'searchMemory',
  description: "Search the user's memories by relevance (BM25 over content and tags); each result has a score.",
  input: () =>
    z.object({
      query: z.string().trim().min(1, 'query is empty').max(1_000),
      limit: z.number().int().min(1).max(50).default(5),
    }),
});

export const memoryTools = [saveMemory, updateMemory, deleteMemory, listMemories, searchMemory] as const;

export interface MemoryRecord {
  memory_id: string;
  content: string;
  tags: string[];
  created_at: string;
  updated_at: string;
  /** The session that saved it, and the last one that changed it. */
  session_id: string;
  updated_by: string;
}

export type MemoryWrite =
  | { op: 'save'; args: z.infer<typeof saveMemory.input> }
  | { op: 'update'; args: z.infer<typeof updateMemory.input> }
  | { op: 'delete'; args: z.infer<typeof deleteMemory.input> };
export type MemoryWriteRequest = MemoryWrite & { session_id: string };

export type MemoryRead =
  { op: 'list'; args: z.infer<typeof listMemories.input> } | { op: 'search'; args: z.infer<typeof searchMemory.input> };

/** Owner ids: who a memory belongs to. Sessions give one when they start (default `default`); sub-agents inherit it. */
export const ownerSchema = lazy(() =>
  z
    .string()
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9._@-]{0,99}$/,
      'an owner id is 1-100 letters, digits, ".", "_", "@" or "-", starting with a letter or digit',
    ),
);
export const defaultOwner = 'default';

/** The registered name of the per-owner memory workflow, and its id: part of the durable protocol. */
export const memoryStoreWorkflowType = 'memoryStoreWorkflow';
export const memoryStoreId = (owner: string) => `arbor-memory-${owner}`;
