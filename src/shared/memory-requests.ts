import type { ToolReply } from './tool-reply.js';
import {
  deleteMemory,
  listMemories,
  saveMemory,
  searchMemory,
  updateMemory,
  type MemoryRead,
  type MemoryWriteRequest,
} from './tools/memory.js';

const writeTools = { save: saveMemory, update: updateMemory, delete: deleteMemory } as const;

/** A memory write checked against its tool's schema (normalised: trimmed content, lower-case tags), or why not. */
export function parseMemoryWrite(request: MemoryWriteRequest): ToolReply<MemoryWriteRequest> {
  const schema = writeTools[request?.op as keyof typeof writeTools]?.input;
  if (!schema || typeof request.session_id !== 'string')
    return { ok: false, error: 'A memory write is {op: save|update|delete, session_id, args}.' };
  const parsed = schema.safeParse(request.args);
  if (!parsed.success)
    return { ok: false, error: `Invalid ${request.op} arguments: ${parsed.error.issues.map((issue) => issue.message).join('; ')}` };
  return { ok: true, result: { ...request, args: parsed.data } as MemoryWriteRequest };
}

/** A memory read with its defaults filled in; throws on one no tool could have sent. */
export function parseMemoryRead(request: MemoryRead): MemoryRead {
  if (request?.op === 'search') return { op: 'search', args: searchMemory.input.parse(request.args) };
  return { op: 'list', args: listMemories.input.parse(request?.args ?? {}) };
}
