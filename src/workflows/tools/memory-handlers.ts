import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type { MemoryRead, MemoryWrite, MemoryWriteRequest } from '../../shared/tools/memory.js';
import { replyText } from './reply.js';
import { skipRetiredRandomId } from './retired-random-id.js';
import { settledWrite } from './settled-write.js';
import type { ToolContext } from './tool-context.js';

// A write or read takes milliseconds; a short timeout lets a retry on another worker start soon after a worker dies.
const memory = proxyActivities<Activities>({ startToCloseTimeout: '10 seconds', retry: { maximumAttempts: 5 } });
// Settling a write given up on is what the model will be told, so it is asked for longer.
const settling = proxyActivities<Activities>({ startToCloseTimeout: '10 seconds', scheduleToCloseTimeout: '10 minutes' });

/** A write to the memories of the session's owner; the update id is the call's step key, so a retry writes once. */
export async function writeMemory(write: MemoryWrite, { state, stepKey }: ToolContext): Promise<string> {
  const request = { ...write, session_id: state.identity.session_id } as MemoryWriteRequest;
  skipRetiredRandomId();
  const { owner } = state.identity;
  const update_id = `memory/${stepKey}`;
  const reply = await settledWrite(
    () => memory.writeMemory({ owner, update_id, request }),
    (reason) => settling.settleMemoryWrite({ owner, update_id, reason }),
  );
  return replyText(reply);
}

export function readMemory(read: MemoryRead, { state }: ToolContext): Promise<string> {
  return memory.readMemory({ owner: state.identity.owner, request: read }).then(replyText);
}
