/** The client SDK's public entry point (`arbor/client`): start sessions and steer them. */
export { ArborClient, type ArborClientOptions, type ConnectOptions } from './client/arbor-client.js';
export { checkSessionId } from './client/session-id.js';
export { ArborClientError } from './client/errors.js';
export { listedSessionStatuses, type ListedSessionStatus, type ListSessionsOptions, type SessionSummary } from './client/session-list.js';
export { SessionHandle, type SessionHandleOptions, type WaitOptions } from './client/session-handle.js';
export { UnansweredQueryError } from './client/access/query-failures.js';
export type { SessionOptions, SessionSnapshot, SessionStatus, TranscriptEntry, SessionResult } from './shared/session.js';
export type { SessionEvent, SessionEventType, EventPage } from './shared/events.js';
export type { Question, QuestionOption, QuestionSet } from './shared/tools/ask-user.js';
export type { Answers, AnswerValue, ResolvedAnswer } from './shared/answers.js';
export type { AnswerReceipt } from './shared/questions.js';
export type { MemoryRecord } from './shared/tools/memory.js';
export { MemoryHandle } from './client/memory-handle.js';
export { memoryStoreFromEnv, type MemoryStoreSettings } from './client/access/memory-store-settings.js';
export { AutomationsHandle } from './client/automations-handle.js';
export type { Automation, AutomationRun } from './shared/tools/automations.js';
export type { TreeEvent, TreeReadOptions } from './client/events/tree-events.js';
export type { EventReadOptions } from './client/events/session-events.js';
