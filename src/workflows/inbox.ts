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
