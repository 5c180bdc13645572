import type { BudgetChange, BudgetState } from './usage.js';
import type { BudgetGrant, TreeUsageReport } from './tree-usage.js';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { EventPage, EventRange } from './events.js';
import type { StreamBatch, StreamPage, StreamRange } from './stream.js';
import type { AnswerReceipt, AnswerRequest, TreeQuestionsChange } from './questions.js';
import type { TaskBoardRequest } from './tools/task-board.js';
import type { MemoryRead, MemoryWriteRequest } from './tools/memory.js';
import type { ToolReply } from './tool-reply.js';
import type { HostToolCatalogue } from './host-tools.js';
import type { WriteBatch, WriteBatchReply } from './write-batches.js';
import type { ExecutePlanReceipt, ExecutePlanRequest } from './work-modes.js';
import type {
  MessageReceipt,
  MessageState,
  SessionSnapshot,
  SubAgentFinished,
  TranscriptEntry,
  TranscriptPage,
  TranscriptPageRequest,
  UserMessage,
} from './session.js';

/** The public protocol of a session workflow, shared by the workflow code and the client. */

/**
 * A user message for the session; queued when a turn is running. Kept for clients that signal: a malformed one is
 * refused with an `error` event (and, if it carried an id, `messageState` of that id is `refused`).
 */
export const userMessageSignal = defineSignal<[UserMessage]>('userMessage');

/**
 * A user message for the session, as an update: its validator refuses a malformed message (or a session that has
 * ended) at the caller with the reason, and a refused update leaves no trace in history. It returns as soon as the
 * message is in the inbox, not when its turn is done.
 */
export const sendMessageUpdate = defineUpdate<MessageReceipt, [UserMessage]>('sendMessage');

/**
 * "Execute plan": switches a session in Plan mode to Execute mode and queues a message that tells the agent to
 * implement its plan. Its validator refuses a malformed request, a session that has ended and one in Execute mode
 * already, at the caller with the reason; a refused update leaves no trace in history. Its argument may be left out.
 */
export const executePlanUpdate = defineUpdate<ExecutePlanReceipt, [ExecutePlanRequest]>('executePlan');

export const snapshotQuery = defineQuery<SessionSnapshot>('snapshot');
/** Entries of this run's transcript, by their position in the run (the worker's rebuild of a model call reads these). */
export const transcriptQuery = defineQuery<TranscriptEntry[], [TranscriptPageRequest?]>('transcript');
/** A page of the transcript by the session's positions, which continue-as-new does not shift (clients read these). */
export const transcriptPageQuery = defineQuery<TranscriptPage, [TranscriptPageRequest?]>('transcriptPage');
/** Whether a message id was never seen, is waiting in the inbox, or has been taken into a turn. */
export const messageStateQuery = defineQuery<MessageState, [string]>('messageState');
/** The session's numbered events after a given seq. */
export const eventsQuery = defineQuery<EventPage, [EventRange?]>('events');

/** What the model call activity read from the provider's stream since its last batch (not durable state; see stream.ts). */
export const streamDeltasSignal = defineSignal<[StreamBatch]>('streamDeltas');

/** The live stream items the session still holds in memory after a position (see stream.ts). */
export const streamQuery = defineQuery<StreamPage, [StreamRange?]>('stream');

/**
 * The user's answers to a question set this session asked. An update with a validator, not a signal: a bad answer
 * (unknown or already answered set, a label not offered, a missing question) is refused at the caller with the
 * reason, and a refused update leaves no trace in the session's history.
 */
export const answerQuestionsUpdate = defineUpdate<AnswerReceipt, [AnswerRequest]>('answerQuestions');

/** From a session below to its root: a question set was asked, or is no longer pending. */
export const treeQuestionsSignal = defineSignal<[TreeQuestionsChange]>('treeQuestions');

/** A sub-agent's task-board operation, applied by the root session that owns the tree's board. */
export const taskBoardUpdate = defineUpdate<ToolReply<unknown>, [TaskBoardRequest]>('taskBoard');
/** Sub-agents' task-board operations in one batch, each applied once by its key (what workers send since batching). */
export const taskBoardWritesUpdate = defineUpdate<WriteBatchReply, [WriteBatch<TaskBoardRequest>]>('taskBoardWrites');

/** A write to an owner's memories (save, update, delete), applied one at a time by the owner's memory workflow. */
export const memoryWriteUpdate = defineUpdate<ToolReply<unknown>, [MemoryWriteRequest]>('memoryWrite');
/** Writes to an owner's memories in one batch, applied in order, each once by its key (what workers and the SDK send). */
export const memoryWritesUpdate = defineUpdate<WriteBatchReply, [WriteBatch<MemoryWriteRequest>]>('memoryWrites');
/** A read of an owner's memories (list, search): a query, so reading adds nothing to the store's history. */
export const memoryReadQuery = defineQuery<unknown, [MemoryRead]>('memoryRead');

/** From a sub-agent to its parent, whichever run the parent is in: it has ended, how, and with which final message. */
export const subAgentFinishedSignal = defineSignal<[SubAgentFinished]>('subAgentFinished');

/**
 * From a session below to its root: its own usage so far (cumulative, so a repeated report changes nothing), sent as it
 * ends and, in a tree with a budget, with `request_id` to ask the root for an allowance (see tree-budget.ts).
 */
export const treeUsageSignal = defineSignal<[TreeUsageReport]>('treeUsage');
/** From a root to a session below that asked: how far it may spend, or why not. */
export const budgetGrantSignal = defineSignal<[BudgetGrant]>('budgetGrant');
/** From a root given a budget while its sub-agents run, and from each of them to its own: draw from the root from now on. */
export const drawFromRootSignal = defineSignal('drawFromRoot');
/** Sets or removes a session's budget limits (a root's are its tree's); answers the budget now and what it counts. */
export const setBudgetUpdate = defineUpdate<BudgetState, [BudgetChange]>('setBudget');
/** Summarizes a session's older entries between turns (defined with the rest of compaction). */
export { compactUpdate } from './compaction.js';

/** The catalogue of host tools the session's run holds (null: none): a worker whose own catalogue differs asks for it. */
export const hostToolCatalogueQuery = defineQuery<HostToolCatalogue | null>('hostToolCatalogue');

/** What a session's run may call: the tools it offers the model (built-in and host, by name) and its catalogue. */
export interface SessionToolsAnswer {
  tool_names: string[];
  host_tools: HostToolCatalogue | null;
  /** Present while the session's host tools are deferred behind ToolSearch, as the snapshot's `tools`. */
  tools?: { deferred: number; loaded: string[] };
}
/** Answered by runs of sessions started (or continued as new) since `arbor tools` came; older runs answer only hostToolCatalogue. */
export const sessionToolsQuery = defineQuery<SessionToolsAnswer>('sessionTools');
