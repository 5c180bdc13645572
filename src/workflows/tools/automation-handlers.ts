import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type { AutomationOperation } from '../../activities/automations.js';
import { replyText } from './reply.js';
import type { ToolContext } from './tool-context.js';

const quick = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 3 } });
// automation_run_wait may wait without limit: the activity heartbeats while it waits, so a lost worker is noticed.
const waiting = proxyActivities<Activities>({ startToCloseTimeout: '7 days', heartbeatTimeout: '1 minute', retry: { maximumAttempts: 5 } });

/** Automations belong to the session's owner; every call is limited to theirs. */
export async function automationTool(operation: AutomationOperation, { state, stepKey }: ToolContext): Promise<string> {
  const call = operation.op === 'run_wait' ? waiting.automationCall : quick.automationCall;
  const neutral = state.neutralTitles ? { neutral_titles: true as const } : {};
  return replyText(await call({ owner: state.identity.owner, operation, call_key: `${state.identity.session_id}/${stepKey}`, ...neutral }));
}
