import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type { MemoryRead, MemoryWrite, MemoryWriteRequest } from '../../shared/tools/memory.js';
import { replyText } from './reply.js';
import { skipRetiredRandomId } from './retired-random-id.js';
import type { ToolContext } from './tool-context.js';

// A write or read takes milliseconds; a short timeout lets a retry on another worker start soon after a worker dies.
const memory = proxyActivities<Activities>({ startToCloseTimeout: '10 seconds', retry: { maximumAttempts: 5 } });

/** A write to the memories of the session's owner; the update id is the call's step key, so a retry writes once. */
export async function writeMemory(write: MemoryWrite, { state, stepKey }: ToolContext): Promise<string> {
  const request = { ...write, session_id: state.identity.session_id } as MemoryWriteRequest;
  skipRetiredRandomId();
  return replyText(await memory.writeMemory({ owner: state.identity.owner, update_id: `memory/${stepKey}`, request }));
}

export function readMemory(read: MemoryRead, { state }: ToolContext): Promise<string> {
  return memory.readMemory({ owner: state.identity.owner, request: read }).then(replyText);
}
