import { ApplicationFailure, uuid4 } from '@temporalio/workflow';
import { z } from 'zod';
import { closedStatuses, maxMessageLength, userMessageSchema, type MessageReceipt, type UserMessage } from '../shared/session.js';
import type { SessionState } from './session-state.js';
import type { TurnInterruption } from './turn-interruption.js';

/** The failure type of a refused `sendMessage` update. */
export const invalidMessageType = 'InvalidMessage';

const expectedMessage =
  `A message is {"content": "<text, 1-${maxMessageLength.toLocaleString('en-US')} characters>", ` +
  '"id": "<optional id of 1-200 characters; the same id is delivered once>", "mode": "<optional: queue, steer or interrupt>", ' +
  '"stop_sub_agents": <optional, with mode interrupt: true to stop the running sub-agents too>}';

type Reading = { ok: true; message: UserMessage } | { ok: false; reason: string };

/** The message as the session takes it, or why it cannot. */
function readMessage(state: SessionState, message: unknown): Reading {
  const parsed = userMessageSchema().safeParse(message);
  if (!parsed.success)
    return { ok: false, reason: `Invalid message: ${z.prettifyError(parsed.error).replace(/\n/g, ' ')}. ${expectedMessage}.` };
  if (closedStatuses.includes(state.status))
    return { ok: false, reason: `Session ${state.identity.session_id} has ended (${state.status}); it takes no more messages.` };
  if (parsed.data.stop_sub_agents !== undefined && parsed.data.mode !== 'interrupt')
    return { ok: false, reason: 'Invalid message: stop_sub_agents goes with mode interrupt only.' };
  return { ok: true, message: parsed.data };
}

/** Why an interrupt cannot be taken now, if it cannot: the update refuses it, so the sender knows nothing was ended. */
function interruptProblem(state: SessionState, interruption: TurnInterruption): string | undefined {
  const id = state.identity.session_id;
  if (!interruption.enabled)
    return `Session ${id} was not started interruptible (a client from before interrupts started it); send the message with mode steer or queue.`;
  if (!interruption.turnRunning())
    return `Session ${id} is not running a turn, so there is nothing to interrupt; send the message without mode interrupt.`;
  return undefined;
}

/** The `sendMessage` validator: refuses (leaving nothing in history) a malformed message, one to a session that has ended, or an interrupt with no turn to end. */
export function checkMessage(state: SessionState, message: unknown, interruption: TurnInterruption): void {
  const reading = readMessage(state, message);
  if (!reading.ok) throw ApplicationFailure.create({ type: invalidMessageType, message: reading.reason, nonRetryable: true });
  const problem = reading.message.mode === 'interrupt' ? interruptProblem(state, interruption) : undefined;
  if (problem !== undefined) throw ApplicationFailure.create({ type: invalidMessageType, message: problem, nonRetryable: true });
}

/** The `sendMessage` handler: queues the message (and delivers its mode) and returns at once, with the id it goes by. */
export function acceptMessage(state: SessionState, message: unknown, interruption: TurnInterruption): MessageReceipt {
  // Validators do not run during replay, so the handler reads the message again rather than trusting them.
  const reading = readMessage(state, message);
  if (!reading.ok) throw ApplicationFailure.create({ type: invalidMessageType, message: reading.reason, nonRetryable: true });
  const id = reading.message.id ?? uuid4();
  deliver(state, { ...reading.message, id }, interruption);
  return { message_id: id, state: state.messageState(id) === 'handled' ? 'handled' : 'queued' };
}

/**
 * Queues a message by its mode: a steer message marked for the running turn, an interrupt ending that turn (a new one
 * then takes the message). A message already seen (a retried send) is not delivered again. An interrupt that finds no
 * turn to end, from the signal (which cannot answer) or after the validator, is simply queued.
 */
function deliver(state: SessionState, message: UserMessage & { id: string }, interruption: TurnInterruption): void {
  if (state.messageState(message.id) === 'queued' || state.messageState(message.id) === 'handled') return;
  state.enqueue({
    id: message.id,
    content: message.content,
    source: 'user',
    ...(message.mode === 'steer' ? { steer: true as const } : {}),
  });
  if (message.mode === 'interrupt') interruption.interrupt({ message_id: message.id, stop_sub_agents: message.stop_sub_agents === true });
}

/**
 * The `userMessage` signal: a signal cannot answer its sender, so a malformed message is recorded as an error event
 * with the reason, and (if it carried an id) that id's state becomes `refused`.
 */
export function receiveMessageSignal(state: SessionState, message: unknown, interruption: TurnInterruption): void {
  const reading = readMessage(state, message);
  if (reading.ok) {
    if (reading.message.mode === undefined) state.enqueue({ ...reading.message, source: 'user' });
    else deliver(state, { ...reading.message, id: reading.message.id ?? uuid4() }, interruption);
    return;
  }
  state.refuseMessage(carriedId(message), `A userMessage signal was refused. ${reading.reason}`);
}

function carriedId(message: unknown): string | undefined {
  const id = (message as { id?: unknown } | null)?.id;
  return typeof id === 'string' && id.length > 0 && id.length <= 200 ? id : undefined;
}
