import { ApplicationFailure, uuid4 } from '@temporalio/workflow';
import { z } from 'zod';
import { closedStatuses, maxMessageLength, userMessageSchema, type MessageReceipt, type UserMessage } from '../shared/session.js';
import type { SessionState } from './session-state.js';

/** The failure type of a refused `sendMessage` update. */
export const invalidMessageType = 'InvalidMessage';

const expectedMessage =
  `A message is {"content": "<text, 1-${maxMessageLength.toLocaleString('en-US')} characters>", ` +
  '"id": "<optional id of 1-200 characters; the same id is delivered once>"}';

type Reading = { ok: true; message: UserMessage } | { ok: false; reason: string };

/** The message as the session takes it, or why it cannot. */
function readMessage(state: SessionState, message: unknown): Reading {
  const parsed = userMessageSchema().safeParse(message);
  if (!parsed.success)
    return { ok: false, reason: `Invalid message: ${z.prettifyError(parsed.error).replace(/\n/g, ' ')}. ${expectedMessage}.` };
  if (closedStatuses.includes(state.status))
    return { ok: false, reason: `Session ${state.identity.session_id} has ended (${state.status}); it takes no more messages.` };
  return { ok: true, message: parsed.data };
}

/** The `sendMessage` validator: refuses (leaving nothing in history) a malformed message, or one to a session that has ended. */
export function checkMessage(state: SessionState, message: unknown): void {
  const reading = readMessage(state, message);
  if (!reading.ok) throw ApplicationFailure.create({ type: invalidMessageType, message: reading.reason, nonRetryable: true });
}

/** The `sendMessage` handler: queues the message and returns at once, with the id it goes by. */
export function acceptMessage(state: SessionState, message: unknown): MessageReceipt {
  // Validators do not run during replay, so the handler reads the message again rather than trusting them.
  const reading = readMessage(state, message);
  if (!reading.ok) throw ApplicationFailure.create({ type: invalidMessageType, message: reading.reason, nonRetryable: true });
  const id = reading.message.id ?? uuid4();
  state.enqueue({ id, content: reading.message.content, source: 'user' });
  return { message_id: id, state: state.messageState(id) === 'handled' ? 'handled' : 'queued' };
}

/**
 * The `userMessage` signal: a signal cannot answer its sender, so a malformed message is recorded as an error event
 * with the reason, and (if it carried an id) that id's state becomes `refused`.
 */
export function receiveMessageSignal(state: SessionState, message: unknown): void {
  const reading = readMessage(state, message);
  if (reading.ok) {
    state.enqueue({ ...reading.message, source: 'user' });
    return;
  }
  state.refuseMessage(carriedId(message), `A userMessage signal was refused. ${reading.reason}`);
}

function carriedId(message: unknown): string | undefined {
  const id = (message as { id?: unknown } | null)?.id;
  return typeof id === 'string' && id.length > 0 && id.length <= 200 ? id : undefined;
}
