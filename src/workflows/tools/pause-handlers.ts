import { condition } from '@temporalio/workflow';
import { hasChange } from '../session-changes.js';
import type { ToolArgs } from '../../shared/tools/define-tool.js';
import { maxWaitSeconds, type wait } from '../../shared/tools/pause.js';
import type { ToolContext } from './tool-context.js';
import { ToolError } from './tool-error.js';
import { parseUntil } from './wall-time.js';
import { timeZoneProblem } from '../../shared/time-zones.js';

/** Sleeps on a durable timer; a user message arriving meanwhile ends the wait early. */
export async function waitFor(args: ToolArgs<typeof wait>, { state }: ToolContext): Promise<string> {
  const now = Date.now();
  let ms: number;
  if (args.seconds !== undefined) {
    ms = Math.round(args.seconds * 1000);
  } else {
    const zoneProblem = args.timezone === undefined ? undefined : timeZoneProblem(args.timezone);
    let target: number;
    try {
      target = parseUntil(args.until!, args.timezone);
    } catch (error) {
      throw new ToolError(zoneProblem ?? (error as Error).message);
    }
    // Before, a zone Intl reads but a schedule would not (`europe/paris`), or one an `until` with an offset leaves unread, waited.
    if (zoneProblem && hasChange('wait-time-zone-checked-as-schedules-read-it')) throw new ToolError(zoneProblem);
    ms = target - now;
    if (ms <= 0) throw new ToolError(`${args.until} is in the past (now is ${new Date(now).toISOString()}).`);
    if (ms > maxWaitSeconds * 1000) throw new ToolError(`${args.until} is more than one week away; a wait is at most one week.`);
  }
  const until = new Date(now + ms).toISOString();
  state.waiting = { until, reason: args.reason ?? null };
  // Newer runs wait through loop firings, goal continuations and sub-agent notices: only a person's message cuts a wait short.
  const userMessagesOnly = hasChange('wait-ends-on-user-messages-only');
  const arrived = () => (userMessagesOnly ? state.inbox.some((message) => message.source === 'user') : state.inbox.length > 0);
  try {
    const interrupted = await condition(arrived, ms);
    const waited = Math.round((Date.now() - now) / 1000);
    return interrupted
      ? `The wait was cut short after ${waited} s: a new message arrived. It will be handled after this turn.`
      : `Waited ${waited} s, until ${until}${args.reason ? ` (${args.reason})` : ''}.`;
  } finally {
    state.waiting = null;
  }
}

export function endTurn({ state }: ToolContext): string {
  state.endTurnRequested = true;
  return 'The turn ends here; the conversation stays open for the next message.';
}
