import type { MessageSource } from './session.js';

/** The message id prefix of goal continuations: they give way to any user message queued with them. */
export const goalContinuationPrefix = 'goal-continuation:';
/** The message id prefix of loop firings: `loop:<loop_id>:<firing>`. */
export const loopFiringPrefix = 'loop:';
/** The message id prefix of cron firings: `cron:<job id>:<firing>`. */
export const cronFiringPrefix = 'cron:';
/** The id prefix of a sub-agent's report queued in its parent's inbox: `sub-agent-finished:<sub_session_id>`. */
export const subAgentNoticePrefix = 'sub-agent-finished:';

const ownPrefixes: [string, MessageSource][] = [
  [goalContinuationPrefix, 'goal'],
  [loopFiringPrefix, 'loop'],
  [cronFiringPrefix, 'cron'],
  [subAgentNoticePrefix, 'sub-agent'],
];

/**
 * Who queued a message, read from its id: the session's own messages have ids with the prefixes above, which stay on
 * their transcript entries (so the worker can tell them from a person's), and any other id is a person's or a client's.
 */
export function sourceOfMessageId(id: string): MessageSource {
  return ownPrefixes.find(([prefix]) => id.startsWith(prefix))?.[1] ?? 'user';
}
