import { proxyActivities, uuid4 } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type { MemoryRead, MemoryWrite, MemoryWriteRequest } from '../../shared/tools/memory.js';
import { replyText } from './reply.js';
import type { ToolContext } from './tool-context.js';

const memory = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 5 } });

/** A write to the memories of the session's owner; the update id is fixed per call, so a retry writes once. */
export async function writeMemory(write: MemoryWrite, { state }: ToolContext): Promise<string> {
  const request = { ...write, session_id: state.identity.session_id } as MemoryWriteRequest;
  return replyText(await memory.writeMemory({ owner: state.identity.owner, update_id: uuid4(), request }));
}

export async function readMemory(read: MemoryRead, { state }: ToolContext): Promise<string> {
  return replyText(await memory.readMemory({ owner: state.identity.owner, request: read }));
}
