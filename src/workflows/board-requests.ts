import { currentUpdateInfo } from '@temporalio/workflow';
import { taskCreate, taskGet, taskUpdate, type TaskBoardRequest } from '../shared/tools/task-board.js';
import type { ToolReply } from '../shared/tool-reply.js';
import { batchShapeError, refuseBatch, type WriteBatch, type WriteBatchReply } from '../shared/write-batches.js';
import type { SessionState } from './session-state.js';
import { applyWriteBatch } from './write-batches.js';

/** Only a root session keeps a board, and only well-formed operations reach it; returns the request with defaults applied. */
export function parseBoardRequest(state: SessionState, request: TaskBoardRequest): TaskBoardRequest {
  if (!state.isRoot())
    throw new Error(
      `Session ${state.identity.session_id} is a sub-agent; the task board is kept by its root ${state.identity.root_session_id}.`,
    );
  if (typeof request?.session_id !== 'string') throw new Error('A task-board request names the calling session_id.');
  const { session_id } = request;
  switch (request.op) {
    case 'list':
      return { session_id, op: 'list' };
    case 'create':
      return { session_id, op: 'create', args: parse(taskCreate.input, request.args, 'create') };
    case 'get':
      return { session_id, op: 'get', args: parse(taskGet.input, request.args, 'get') };
    case 'update':
      return { session_id, op: 'update', args: parse(taskUpdate.input, request.args, 'update') };
    default:
      throw new Error(`Unknown task-board operation ${String((request as { op?: unknown }).op)}.`);
  }
}

/** The update handler: validators do not run on replay, so it checks again and answers a bad request with a refusal. */
export function applyBoardRequest(state: SessionState, request: TaskBoardRequest): ToolReply<unknown> {
  const updateId = currentUpdateInfo()?.id;
  const earlier = state.board.updates.earlier(updateId);
  if (earlier) return earlier;
  let parsed: TaskBoardRequest;
  try {
    parsed = parseBoardRequest(state, request);
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
  const reply = state.board.apply(parsed);
  return parsed.op === 'create' || parsed.op === 'update' ? state.board.updates.keep(updateId, reply) : reply;
}

/** The batch update's validator: only a root keeps the board, and only a well-formed batch reaches it. */
export function checkBoardBatch(state: SessionState, batch: WriteBatch<TaskBoardRequest>): void {
  const malformed = boardBatchError(state, batch);
  if (malformed) throw new Error(malformed);
}

/** The batch update's handler: each operation applied in order, the writes once by their keys; a bad one refused alone. */
export function applyBoardBatch(state: SessionState, batch: WriteBatch<TaskBoardRequest>): WriteBatchReply {
  const malformed = boardBatchError(state, batch);
  if (malformed) return refuseBatch(batch, malformed);
  return applyWriteBatch(
    batch,
    state.board.updates,
    (request) => {
      try {
        return state.board.apply(parseBoardRequest(state, request));
      } catch (error) {
        return { ok: false, error: (error as Error).message };
      }
    },
    (request) => request?.op === 'create' || request?.op === 'update',
  );
}

function boardBatchError(state: SessionState, batch: WriteBatch<TaskBoardRequest>): string | undefined {
  if (!state.isRoot())
    return `Session ${state.identity.session_id} is a sub-agent; the task board is kept by its root ${state.identity.root_session_id}.`;
  return batchShapeError(batch);
}

function parse<T>(
  schema: { safeParse(value: unknown): { success: true; data: T } | { success: false; error: { message: string } } },
  value: unknown,
  op: string,
): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`Invalid ${op} arguments: ${parsed.error.message}`);
  return parsed.data;
}
