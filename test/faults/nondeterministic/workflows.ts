/**
 * Today's session workflow with one deliberate non-deterministic change, unguarded by patched(): a timer before the
 * session begins. Replaying a committed history with it must fail, which shows the replay test can catch such changes.
 */
import { sleep } from '@temporalio/workflow';
import type { SessionInput, SessionResult } from '../../../src/shared/session.js';
import { arborSessionV2 as arborSessionV2Today } from '../../../src/workflows/session-workflow.js';

export async function arborSessionV2(input: SessionInput): Promise<SessionResult> {
  await sleep('1 second');
  return arborSessionV2Today(input);
}
