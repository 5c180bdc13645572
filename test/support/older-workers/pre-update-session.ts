import { condition, setHandler } from '@temporalio/workflow';
import { messageStateQuery, userMessageSignal } from '../../../src/shared/messages.js';

/** A session as workers before the `sendMessage` update served it: messages come only as the userMessage signal. */
export async function preUpdateSession(): Promise<void> {
  const received = new Set<string>();
  setHandler(userMessageSignal, (message) => void (message.id && received.add(message.id)));
  setHandler(messageStateQuery, (id) => (received.has(id) ? 'handled' : 'unknown'));
  await condition(() => false);
}
