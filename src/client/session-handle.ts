import { budgetChangeSchema, type BudgetChange, type BudgetState } from '../shared/usage.js';
import { randomUUID } from 'node:crypto';
import {
  CancelledFailure,
  ServiceError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { z } from 'zod';
import { listedStatus } from './session-list.js';
import { statusKey } from '../shared/search-attributes.js';
import { ArborClientError } from './errors.js';
import { boundedQuery, checkQueryTimeout, isMissingQuery, isUnansweredQuery } from './access/query-failures.js';
import { createSessionTree, type SessionTreeNode, type StoppedSessions } from './access/session-tree.js';
import { executePlanRequestSchema } from '../shared/work-modes.js';
import {
  executePlanUpdate,
  messageStateQuery,
  sendMessageUpdate,
  setBudgetUpdate,
  snapshotQuery,
  transcriptPageQuery,
  transcriptQuery,
  userMessageSignal,
} from '../shared/messages.js';
import {
  userMessageSchema,
  type MessageState,
  type SessionResult,
  type SessionSnapshot,
  type TranscriptEntry,
  type TranscriptRange,
  type UserMessage,
} from '../shared/session.js';
import type { SessionWorkflow } from '../shared/workflow-types.js';
import type { SessionEvent } from '../shared/events.js';
import { compactUpdate, type CompactReceipt } from '../shared/compaction.js';
import type { AnswerReceipt } from '../shared/questions.js';
import type { QuestionSet } from '../shared/tools/ask-user.js';
import type { Answers } from '../shared/answers.js';
import { readSessionEvents, type EventReadOptions } from './events/session-events.js';
import { readTreeEvents, type TreeEvent, type TreeReadOptions } from './events/tree-events.js';
import { readSessionStream, type StreamReadOptions } from './events/session-stream.js';
import { readTreeStream, type TreeStreamItem, type TreeStreamOptions } from './events/tree-stream.js';
import type { StreamItem } from '../shared/stream.js';
import { answerQuestionSet, pendingQuestionsOf } from './session-questions.js';
import { readSessionTranscript, readTranscriptPages } from './access/transcript-pages.js';
import { SendWindows } from './send-windows.js';
import { forkTree } from './fork/fork-tree.js';
import { utf8Length } from '../shared/utf8.js';
import type { DeliveryMode } from '../shared/delivery-modes.js';

export { maxUnacknowledgedBytes, maxUnacknowledgedSends } from './send-windows.js';

const sendWindows = new SendWindows();

/**
 * How long a send waits for the session to accept its `sendMessage` update before it also sends the message as the
 * `userMessage` signal (same id, so it is delivered once): an update waits for a worker, a signal does not.
 */
const updateAcceptWaitMs = 5_000;

export interface WaitOptions {
  /** Wait until this message has been taken into a turn and that turn has ended. */
  messageId?: string;
  /** Give up after this long (default: wait as long as it takes). */
  timeoutMs?: number;
  /** Called with transcript entries as they appear, from `fromEntry` on. */
  onEntries?: (entries: TranscriptEntry[]) => void;
  fromEntry?: number;
  pollIntervalMs?: number;
}

export interface SendOptions {
  /** The message's dedupe key: sent twice with one id, it is delivered once (default: a new UUID). */
  id?: string;
  /**
   * How it reaches a running turn: `queue` (default) waits for the turn to end; `steer` joins the turn at its next
   * model call; `interrupt` cancels the turn (its model call, and the tool calls that can be cancelled) and starts a
   * new turn with the message. An interrupt to a session running no turn is refused with an ArborClientError.
   */
  mode?: DeliveryMode;
  /** With `mode: 'interrupt'`: stop the session's running sub-agents too (default: they keep running). */
  stopSubAgents?: boolean;
}

export interface ForkOptions {
  /** The transcript position to fork at: a number of entries where a turn ended (default: the latest turn end). */
  at?: number;
}

export interface SessionHandleOptions {
  /**
   * How long each query (snapshot, a transcript page, a message's state) may go unanswered before it fails with
   * UnansweredQueryError (default 30 s, as long as the server waits for a worker). `waitUntilIdle` asks again.
   */
  queryTimeoutMs?: number;
}

/** A session by id: send it messages, read its snapshot and transcript, wait for its turns to end. */
export class SessionHandle {
  private readonly workflow: WorkflowHandle<SessionWorkflow>;
  private readonly queryTimeoutMs: number;

  constructor(
    readonly id: string,
    private readonly client: Client,
    options: SessionHandleOptions = {},
  ) {
    this.workflow = client.workflow.getHandle<SessionWorkflow>(id);
    this.queryTimeoutMs = checkQueryTimeout(options.queryTimeoutMs);
  }

  /**
   * Sends a user message and returns its id, once the session has it queued (the `sendMessage` update, whose
   * validator refuses a malformed message or a session that has ended with an ArborClientError). Sending the same id
   * twice delivers it once. Messages from this client to one session go out in the order of the calls. Where the
   * update cannot be used (a worker from before it, no worker answering within 5 s, the server's limits on updates),
   * the message goes as the `userMessage` signal, with at most `maxUnacknowledgedSends` of them, and at most
   * `maxUnacknowledgedBytes` of them, not yet taken in by the session: a flood of sends, or of large messages, is
   * delivered at the pace the session can take it, none lost.
   */
  async send(content: string, options: SendOptions = {}): Promise<string> {
    const parsed = userMessageSchema().safeParse({
      content,
      id: options.id ?? randomUUID(),
      // Left out at the default, so the message reads as it did to workers from before delivery modes.
      ...(options.mode !== undefined && options.mode !== 'queue' ? { mode: options.mode } : {}),
      ...(options.stopSubAgents !== undefined ? { stop_sub_agents: options.stopSubAgents } : {}),
    });
    if (!parsed.success) throw new ArborClientError(`Invalid message: ${z.prettifyError(parsed.error)}`);
    const message = parsed.data;
    const id = message.id!;
    try {
      await sendWindows.send(
        this.id,
        id,
        utf8Length(message.content),
        () => this.deliver(message),
        async (sent) => (await this.query(() => this.workflow.query(messageStateQuery, sent))) !== 'unknown',
      );
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      const ended = await this.workflow.describe().catch(() => undefined);
      if (ended)
        throw new ArborClientError(
          `Session ${this.id} has ended (${listedStatus(ended.status.name, ended.typedSearchAttributes.get(statusKey))}); it takes no more messages.`,
        );
      throw new ArborClientError(`No session with id ${this.id}.`);
    }
    return id;
  }

  /** Delivers a message: true when the `sendMessage` update has queued it, false when it went as the signal. */
  private async deliver(message: UserMessage): Promise<boolean> {
    const update = this.workflow.executeUpdate(sendMessageUpdate, { args: [message], updateId: message.id });
    let timer: NodeJS.Timeout | undefined;
    const slow = new Promise<'slow'>((resolve) => (timer = setTimeout(() => resolve('slow'), updateAcceptWaitMs)));
    try {
      if ((await Promise.race([update, slow])) !== 'slow') return true;
      // Left to go on: once a worker takes it, the session finds the id already queued (or handled) by the signal.
      update.catch(() => undefined);
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError) {
        const reason = error.cause?.message ?? error.message;
        if (!reason.startsWith('No registered handler for update')) throw new ArborClientError(reason);
      } else if (!(error instanceof ServiceError)) {
        throw error;
      }
    } finally {
      clearTimeout(timer);
    }
    await this.workflow.signal(userMessageSignal, message);
    return false;
  }

  /**
   * "Execute plan": switches a session in Plan mode (`work_mode: 'plan'`) to Execute mode with the `executePlan` update,
   * and queues the message that tells the agent to implement its plan, with `message` (the user's words) added.
   * Returns that message's id, for `waitUntilIdle({ messageId })`. A session in Execute mode already, one that has
   * ended, or a worker from before Plan mode throws ArborClientError with the reason.
   */
  async executePlan(options: { message?: string; id?: string } = {}): Promise<string> {
    const parsed = executePlanRequestSchema().safeParse(options);
    if (!parsed.success) throw new ArborClientError(`Invalid executePlan request: ${z.prettifyError(parsed.error)}`);
    const id = parsed.data.id ?? randomUUID();
    try {
      const receipt = await this.workflow.executeUpdate(executePlanUpdate, {
        args: [{ ...parsed.data, id }],
        updateId: `execute-plan:${id}`,
      });
      return receipt.message_id;
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError) throw new ArborClientError(error.cause?.message ?? error.message);
      if (error instanceof WorkflowNotFoundError) throw new ArborClientError(`No session with id ${this.id}.`);
      throw error;
    }
  }

  /**
   * Sets, raises or removes the session's budget (a root's is its whole tree's): a number sets a limit, null removes
   * it, a key left out keeps it. A session the budget stopped takes messages again, and `budget_stop` is cleared.
   * Returns the budget now and what it counts (the tree's totals at a root). Bad limits throw ArborClientError.
   */
  async setBudget(change: BudgetChange): Promise<BudgetState> {
    const parsed = budgetChangeSchema().safeParse(change);
    if (!parsed.success) throw new ArborClientError(`Invalid budget: ${z.prettifyError(parsed.error)}`);
    try {
      return await this.workflow.executeUpdate(setBudgetUpdate, { args: [parsed.data] });
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError) throw new ArborClientError(error.cause?.message ?? error.message);
      if (error instanceof WorkflowNotFoundError) throw new ArborClientError(`No session with id ${this.id}.`);
      throw error;
    }
  }

  /**
   * Replaces the session's older entries with a summary written by the model (the worker's ARBOR_SUMMARY_MODEL, else
   * the session's), keeping the newest turn as it is: the transcript gets a `summary` entry, which the model's later
   * requests carry in place of what it replaces. Runs between turns only: while a turn runs, or with nothing to
   * summarize, it throws ArborClientError saying so. A summary call that fails answers `{ outcome: 'failed', reason }`
   * (and the transcript gets a notice); the session goes on as before.
   */
  async compact(): Promise<CompactReceipt> {
    try {
      return await this.workflow.executeUpdate(compactUpdate);
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError) throw new ArborClientError(error.cause?.message ?? error.message);
      if (error instanceof WorkflowNotFoundError) throw new ArborClientError(`No session with id ${this.id}.`);
      throw error;
    }
  }

  /**
   * A new session that begins with this one's state as it was where its transcript had `at` entries (default: its
   * latest turn end), and then goes its own way: conversation, todos, plan, goals, task board, loops and the rest.
   * Sub-agents running then are started again in the new tree from their own state at that time; finished ones are
   * carried as finished. The state is read from the session's Temporal history by a local replay; this session is
   * only read. A position past the end or inside a turn, or an unknown session, throws ArborClientError.
   */
  async fork(options: ForkOptions = {}): Promise<SessionHandle> {
    const { session_id } = await forkTree(this.client, this.id, options.at);
    return new SessionHandle(session_id, this.client, { queryTimeoutMs: this.queryTimeoutMs });
  }

  snapshot(): Promise<SessionSnapshot> {
    return this.call(() => this.query(() => this.workflow.query(snapshotQuery)));
  }

  /**
   * The transcript, or the range of it given, read in pages of bounded size. Positions are the session's: an offset
   * taken from a snapshot's `message_count` still points after the same entries when the session has since continued
   * as new; entries compacted away by then are not returned (the range starts at the oldest entry still held).
   */
  transcript(range?: TranscriptRange): Promise<TranscriptEntry[]> {
    return this.call(async () => {
      try {
        return await readSessionTranscript(
          (page, runId) =>
            this.query(() => (runId ? this.client.workflow.getHandle(this.id, runId) : this.workflow).query(transcriptPageQuery, page)),
          range,
        );
      } catch (error) {
        // A worker from before the transcriptPage query: read by the run's positions, as it answers them.
        if (!isMissingQuery(error, transcriptPageQuery.name)) throw error;
        return readTranscriptPages((page) => this.query(() => this.workflow.query(transcriptQuery, page)), range);
      }
    });
  }

  /** Whether a message id was never seen, is queued, or has been taken into a turn. */
  messageState(messageId: string): Promise<MessageState> {
    return this.call(() => this.query(() => this.workflow.query(messageStateQuery, messageId)));
  }

  /** Resolves with the snapshot once the session is no longer running a turn (and, given a message id, has handled it). */
  async waitUntilIdle(options: WaitOptions = {}): Promise<SessionSnapshot> {
    const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
    const interval = options.pollIntervalMs ?? 200;
    let seen = options.fromEntry ?? 0;
    let last: string;
    for (;;) {
      try {
        const snapshot = await this.snapshot();
        last = snapshot.status;
        if (options.onEntries && snapshot.message_count > seen) {
          const entries = await this.transcript({ offset: seen, limit: snapshot.message_count - seen });
          // Entries compacted away meanwhile are skipped: what was read ends at the snapshot's count either way.
          seen = snapshot.message_count;
          if (entries.length > 0) options.onEntries(entries);
        }
        const state = options.messageId === undefined ? 'handled' : await this.messageState(options.messageId);
        if (state === 'refused')
          throw new ArborClientError(`Session ${this.id} refused message ${options.messageId}; its error event (events query) says why.`);
        const handled = state === 'handled';
        if (!handled)
          last = `${snapshot.status}, with message ${options.messageId} ${state === 'queued' ? 'still queued' : 'not received'}`;
        // A session waiting for the user's answers is still in its turn.
        if (
          handled &&
          snapshot.status !== 'running' &&
          snapshot.status !== 'waiting_for_user' &&
          (options.messageId !== undefined || snapshot.queued_messages === 0)
        ) {
          return snapshot;
        }
      } catch (error) {
        // No worker answered in time (one restarting, say): the session is still there, so ask again.
        if (!isUnansweredQuery(error)) throw error;
        last = `unanswered (${(error as Error).message})`;
      }
      if (Date.now() >= deadline) {
        throw new ArborClientError(`Session ${this.id} is still ${last} after ${options.timeoutMs} ms.`);
      }
      await new Promise((resolve) => setTimeout(resolve, interval));
    }
  }

  /**
   * Stops the session and all its sub-agents by Temporal cancellation, leaves first, and returns them in the order
   * they stopped. Each ends as Canceled with status `stopped`.
   */
  async stop(): Promise<StoppedSessions> {
    const answer = await createSessionTree(this.client).stopSessionTree(null, this.id);
    if (!answer.ok) throw new ArborClientError(answer.error);
    return answer.result;
  }

  /** The session and its sub-agents at every depth, with their status and mode. */
  async tree(): Promise<SessionTreeNode> {
    const tree = await createSessionTree(this.client).tree(this.id);
    if (!tree) throw new ArborClientError(`No session with id ${this.id}.`);
    return tree;
  }

  /** Question sets waiting for the user in this session's tree (asked here, or anywhere below its root). */
  pendingQuestions(): Promise<QuestionSet[]> {
    return pendingQuestionsOf(this.client, this.id);
  }

  /**
   * Answers a question set waiting in this session's tree: keys are the question texts, values a label, a list of
   * labels (multi-select), or `{ other: "text" }` for the user's own words. Without an id, the one waiting set (or the
   * one whose questions the answers name) is answered. A bad answer throws ArborClientError and changes nothing.
   */
  answer(answers: Answers, options: { questionSetId?: string } = {}): Promise<AnswerReceipt> {
    return answerQuestionSet(this.client, this.id, options.questionSetId, answers);
  }

  /** This session's events, in order, from `after` on; follows new ones until the session ends (or the signal aborts). */
  events(options: EventReadOptions = {}): AsyncGenerator<SessionEvent> {
    return readSessionEvents(this.client, this.id, options);
  }

  /** The events of this session and every sub-agent below it, as they happen, each tagged with its session. */
  treeEvents(options: TreeReadOptions = {}): AsyncGenerator<TreeEvent> {
    return readTreeEvents(this.client, this.id, options);
  }

  /**
   * The session's live stream: text deltas and tool calls as the model writes them, tool results, turn ends, and a
   * `retry` item when a model call is attempted again (drop that round's text of earlier attempts). Resume after a
   * reconnect with `from` the last `pos` read. Follows until the session ends (or the signal aborts).
   */
  stream(options: StreamReadOptions = {}): AsyncGenerator<StreamItem> {
    return readSessionStream(this.client, this.id, options);
  }

  /** The live stream of this session and every sub-agent below it, each item tagged with its session. */
  streamTree(options: TreeStreamOptions = {}): AsyncGenerator<TreeStreamItem> {
    return readTreeStream(this.client, this.id, options);
  }

  /** The session's result once its workflow has ended (a root session runs until stopped). */
  async result(): Promise<SessionResult> {
    try {
      return await this.call(() => this.workflow.result());
    } catch (error) {
      if (!(error instanceof WorkflowFailedError && error.cause instanceof CancelledFailure)) throw error;
      const last = (await this.snapshot()).last_message;
      return { session_id: this.id, status: 'stopped', final_message: last?.role === 'assistant' ? last.content : null };
    }
  }

  private query<T>(query: () => Promise<T>): Promise<T> {
    return boundedQuery(this.client, this.id, query, this.queryTimeoutMs);
  }

  private async call<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) throw new ArborClientError(`No session with id ${this.id}.`);
      throw error;
    }
  }
}
