import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { MessageState, SessionSnapshot, TranscriptEntry, TranscriptRange, UserMessage } from './session.js';

/** The public protocol of a session workflow, shared by the workflow code and the client. */

/** A user message for the session; queued when a turn is running. */
export const userMessageSignal = defineSignal<[UserMessage]>('userMessage');

export const snapshotQuery = defineQuery<SessionSnapshot>('snapshot');
export const transcriptQuery = defineQuery<TranscriptEntry[], [TranscriptRange?]>('transcript');
/** Whether a message id was never seen, is waiting in the inbox, or has been taken into a turn. */
export const messageStateQuery = defineQuery<MessageState, [string]>('messageState');
