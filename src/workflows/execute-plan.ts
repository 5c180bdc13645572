import { ApplicationFailure, uuid4 } from '@temporalio/workflow';
import { z } from 'zod';
import { closedStatuses } from '../shared/session.js';
import type { ProfileName } from '../shared/tools/profiles/names.js';
import { executePlanMessage, executePlanRequestSchema, type ExecutePlanReceipt, type ExecutePlanRequest } from '../shared/work-modes.js';
import type { SessionState } from './session-state.js';

/** The failure type of a refused `executePlan` update. */
export const executePlanRefusedType = 'ExecutePlanRefused';

type Reading = { ok: true; request: ExecutePlanRequest } | { ok: false; reason: string };

/** The request as the session takes it, or why it cannot. */
function readRequest(state: SessionState, request: unknown): Reading {
  const parsed = executePlanRequestSchema().safeParse(request ?? {});
  if (!parsed.success)
    return {
      ok: false,
      reason: `Invalid executePlan request: ${z.prettifyError(parsed.error).replace(/\n/g, ' ')}. It is {} or {"message": "<text>", "id": "<message id>"}.`,
    };
  const id = state.identity.session_id;
  if (closedStatuses.includes(state.status))
    return { ok: false, reason: `Session ${id} has ended (${state.status}); there is no plan to execute.` };
  if (state.workMode !== 'plan') return { ok: false, reason: `Session ${id} is in Execute mode already: its tools all run.` };
  return { ok: true, request: parsed.data };
}

function refuse(reason: string): never {
  throw ApplicationFailure.create({ type: executePlanRefusedType, message: reason, nonRetryable: true });
}

/** The `executePlan` validator: refuses (leaving nothing in history) a malformed request, or a session not in Plan mode. */
export function checkExecutePlan(state: SessionState, request: unknown): void {
  const reading = readRequest(state, request);
  if (!reading.ok) refuse(reading.reason);
}

/**
 * The `executePlan` handler: Execute mode from now on (the next tool call runs destructive tools too, in a turn under
 * way as well), a notice, and the message that tells the agent to implement the plan, queued like a user message.
 */
export function acceptExecutePlan(state: SessionState, request: unknown): ExecutePlanReceipt {
  // Validators do not run during replay, so the handler reads the request again rather than trusting them.
  const reading = readRequest(state, request);
  if (!reading.ok) refuse(reading.reason);
  state.workMode = 'execute';
  state.append({
    role: 'notice',
    content: 'Execute plan: the session is in Execute mode now; tools marked destructive run.',
    turn: state.turn,
  });
  const id = reading.request.id ?? uuid4();
  state.enqueue({ id, content: executePlanMessage(reading.request.message, planReadBack[state.profile]), source: 'user' });
  return { work_mode: 'execute', message_id: id };
}

/** Where the agent of each profile reads its plan back. */
const planReadBack: Record<ProfileName, string> = {
  all: 'planGet reads it back',
  soai: 'plan_get reads it back',
  rtc: 'your todo list holds its steps',
  claurst: 'TaskList shows its tasks',
};
