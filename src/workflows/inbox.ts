import { hasChange } from './session-changes.js';
import { goalContinuationPrefix } from './goals.js';
import { loopFiringPrefix } from './loops.js';
import { cronFiringPrefix } from './cron-jobs.js';
import { subAgentNoticePrefix } from './sub-agents.js';

/** Messages the session queues for itself, by the prefix of their ids. */
const ownPrefixes = [goalContinuationPrefix, loopFiringPrefix, cronFiringPrefix, subAgentNoticePrefix];

/** Whether a queued message came from a person (or a client), not from the session's own goals, loops or sub-agents. */
export function isUserMessage(messageId: string): boolean {
  return !ownPrefixes.some((prefix) => messageId.startsWith(prefix));
}

/**
 * The most characters of queued messages one turn takes (at least one message): messages are up to 200,000
 * characters each and pile up while a turn runs; taken all at once they could carry the next model call's input
 * past Temporal's 2 MB payload limit, and the session would be stuck. Undefined in runs that took everything (older
 * code). Ask it once, at the start of the run: asked first after a local activity resolves, a replay can miss the
 * patch marker.
 */
export function inboxBatchChars(): number | undefined {
  return hasChange('turn-takes-bounded-inbox-batch') ? 250_000 : undefined;
}
