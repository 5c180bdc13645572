import type { CarriedInboxMessage, InboxMessage } from '../shared/session.js';
import { hasChange } from './session-changes.js';
import { sourceOfMessageId } from '../shared/message-sources.js';

/**
 * A queued message carried from the run before, with its source. Runs from before messages kept their source carried
 * none; it is then read from the id, whose prefix marks the session's own messages (any other id is a person's).
 */
export function carriedMessage(message: CarriedInboxMessage): InboxMessage {
  return { ...message, source: message.source ?? sourceOfMessageId(message.id) };
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
