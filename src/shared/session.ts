import type { SummaryRange } from './compaction.js';
import { z } from 'zod';
import { lazy } from './lazy.js';
import type { TodoItem } from './tools/todo.js';
import { ownerSchema } from './tools/memory.js';
import { deliveryModeSchema } from './delivery-modes.js';
import type { QuestionSet } from './tools/ask-user.js';
import type { SessionEvent } from './events.js';
import type { BoardTask, TaskStatus } from './tools/task-board.js';
import type { Goal } from './tools/goals.js';
import type { Loop } from './tools/loops.js';
import type { CronJob } from './tools/cron.js';
import type { SessionEnvironment } from './model.js';
import { maxCostUsdSchema, maxTokensSchema, type UsageSnapshot } from './usage.js';
import type { CarriedUsage } from './tree-usage.js';
import type { HostToolCatalogue } from './host-tools.js';
import type { ToolSearchLimits } from './tools/tool-search.js';
import { approvalPolicySchema } from './approvals.js';
import { workModeSchema, type WorkMode } from './work-modes.js';
import { profileSchema, type ProfileName } from './tools/profiles/names.js';

/** Lifecycle of a session. `waiting_for_user` is reserved for askUser. */
export const sessionStatuses = ['running', 'idle', 'waiting_for_user', 'completed', 'stopped', 'failed'] as const;
export type SessionStatus = (typeof sessionStatuses)[number];

/** Statuses after which a session's workflow has returned and takes no more messages. */
export const closedStatuses: readonly SessionStatus[] = ['completed', 'stopped', 'failed'];

export const defaultMaxToolRounds = 25;
export const defaultMaxDepth = 4;
export const defaultMaxChildren = 50;

export interface StoredPlan {
  title: string | null;
  content: string;
  revision: number;
}

/** How much of a sub-agent's final message its parent's record keeps. */
export const childFinalMessageChars = 1_000;

/** A sub-agent as its parent records it. */
export interface ChildSession {
  sub_session_id: string;
  title: string;
  mode: 'async' | 'sync';
  status: SessionStatus;
  created_at: string;
  updated_at: string;
  /** The first `childFinalMessageChars` characters of its final message (its own snapshot and transcript have it all). */
  final_message: string | null;
  /** The name its parent gave it for messaging (claurst `Agent`'s `name`), unique among the parent's running sub-agents. */
  name?: string;
  /** Started to outlive its parent's run (parent close policy ABANDON): the parent may continue as new meanwhile. */
  outlives_run?: boolean;
}

/** What a sub-agent tells its parent when it ends. */
export interface SubAgentFinished {
  sub_session_id: string;
  status: SessionStatus;
  final_message: string | null;
  /** Why a failed sub-agent failed (its last turn's error), when it says. */
  error?: string;
}
export const maxMessageLength = 200_000;

export const toolCallSchema = lazy(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    /** Raw JSON text exactly as the model produced it: it may be malformed. */
    arguments: z.string(),
  }),
);
export type ToolCall = z.infer<ReturnType<typeof toolCallSchema>>;

export type TranscriptRole = 'user' | 'assistant' | 'tool' | 'error' | 'notice' | 'summary';

/** One entry of a session's transcript. `error` and `notice` entries are for people and are not sent to the model. */
export interface TranscriptEntry {
  id: string;
  role: TranscriptRole;
  content: string;
  created_at: string;
  /** Assistant entries: the tool calls the model asked for. */
  tool_calls?: ToolCall[];
  /** Tool entries: which call this answers, and the tool's name. */
  tool_call_id?: string;
  name?: string;
  /** Tool entries: the call was refused or failed, and the content explains why. */
  is_error?: boolean;
  /** Which turn produced the entry (1-based). */
  turn?: number;
  /** Summary entries: what the summary replaces in the model's requests (see src/shared/compaction.ts). */
  summary_of?: SummaryRange;
}

export const sessionInputSchema = lazy(() =>
  z.object({
    instruction: z
      .string()
      .max(maxMessageLength)
      .optional()
      .describe("The session's first message (not blank); omitted: the session waits for one"),
    title: z.string().max(200).optional().describe('Shown in the Web UI and the CLI; default: made from the instruction'),
    model: z.string().min(1).max(200).optional().describe("The model's name; default: the worker's ARBOR_MODEL"),
    system_prompt: z.string().max(maxMessageLength).optional().describe("Replaces Arbor's system prompt"),
    parent_session_id: z.string().optional().describe('Set by Arbor for a sub-agent'),
    root_session_id: z.string().optional().describe("Set by Arbor for a sub-agent: its tree's root"),
    max_tool_rounds: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .optional()
      .describe('Model calls allowed in one turn before the turn is ended (default 25)'),
    tools: z
      .array(z.string())
      .optional()
      .describe("Names of the tools this session may use (built-in ones of its profile, and host tools); omitted: all of its profile's"),
    profile: profileSchema()
      .optional()
      .describe(
        'Whose tools the model is shown: rtc (default), claurst, soai, or all (every built-in tool, as sessions from before profiles have); sub-agents inherit it',
      ),
    mode: z.enum(['async', 'sync']).optional().describe('Set by Arbor for a sub-agent: how its parent waits for it'),
    ancestor_session_ids: z
      .array(z.string())
      .max(100)
      .optional()
      .describe('Set by Arbor for a sub-agent: the sessions above it, root first'),
    max_depth: z.number().int().min(0).max(64).optional().describe('Deepest sub-agent level below the root (default 4)'),
    max_children: z.number().int().min(0).max(1000).optional().describe('Running sub-agents per session (default 50)'),
    owner: ownerSchema().optional().describe('Whose memories the session reads and writes (default "default"); sub-agents inherit it'),
    history_limit: z
      .number()
      .int()
      .min(100)
      .max(10_000)
      .optional()
      .describe("Continue as new once a run's history has this many events (default 5,000; Temporal warns at 10,240)"),
    ends_when_done: z
      .boolean()
      .optional()
      .describe('A root session that ends once its work is done, as a sub-agent does (automation runs)'),
    approval: approvalPolicySchema()
      .optional()
      .describe(
        'What a host tool call that needs approval does: ask the user (default), allow it, or deny it without asking (default when ends_when_done)',
      ),
    max_tokens: maxTokensSchema()
      .optional()
      .describe(
        "Tokens (prompt + completion) the session may use, a root's for its whole tree; checked before each model call (raise it with the setBudget update)",
      ),
    max_cost_usd: maxCostUsdSchema()
      .optional()
      .describe(
        "US dollars the session may spend by the worker's price table, a root's for its whole tree (calls of unpriced models count 0)",
      ),
    sub_agent_budget: z
      .strictObject({ max_tokens: maxTokensSchema().optional(), max_cost_usd: maxCostUsdSchema().optional() })
      .optional()
      .describe("Limits each sub-agent in the tree has for its own calls, within the root's; sub-agents hand it down"),
    draws_from_root: z
      .literal(true)
      .optional()
      .describe('Set by Arbor for a sub-agent whose root has a budget: it asks the root for allowances'),
    neutral_titles: z
      .literal(true)
      .optional()
      .describe(
        "Set by the SDK's neutralTitles (ARBOR_NEUTRAL_TITLES): the session's ArborTitle and its sub-agents' summaries and ArborTitle are the neutral title; sub-agents inherit it",
      ),
    work_mode: workModeSchema()
      .optional()
      .describe(
        'plan: tools marked destructive do not run, and sub-agents are in Plan mode too, until the executePlan update; execute (default): every tool runs',
      ),
    interruptible: z
      .boolean()
      .optional()
      .describe(
        'Whether a message with mode interrupt may cancel a running turn (the SDK sets it true; sessions without it refuse interrupts)',
      ),
  }),
);
export type SessionOptions = z.infer<ReturnType<typeof sessionInputSchema>>;

/** State carried across continue-as-new; absent on a session's first run. */
export interface CarriedState {
  transcript: TranscriptEntry[];
  inbox: CarriedInboxMessage[];
  turn: number;
  model: string;
  search_attributes: boolean;
  unavailable_tools?: string[];
  created_at: string;
  /** Absent in runs from before it was kept, and before the first turn. */
  turn_started_at?: string;
  todos: TodoItem[];
  children?: ChildSession[];
  plan?: StoredPlan | null;
  /** Absent in runs from before the event stream. */
  events?: { next_seq: number; events: SessionEvent[] };
  tree_questions?: (QuestionSet & { ancestor_session_ids: string[] })[];
  question_timeout_seconds?: number;
  task_board?: { tasks: BoardTask[]; next_id: number };
  goals?: Goal[];
  loops?: Loop[];
  cron_jobs?: CronJob[];
  cron_timezone?: string;
  loop_limits?: { min_interval_seconds: number; max_age_seconds: number };
  /** The session's host tool catalogue; absent: none. */
  host_tools?: HostToolCatalogue;
  /**
   * Ids of user messages compacted out of the transcript, newest last (at most `carriedForgottenMessageIds`), so that
   * a message sent again, or waited for, after continue-as-new is still known as handled. Absent in older runs.
   */
  forgotten_message_ids?: string[];
  /** The session's position of the carried transcript's first entry (the entries before it were compacted away). */
  transcript_start?: number;
  /** The newest ids of malformed message signals, with why each was refused. Absent: none. */
  refused_messages?: RefusedMessage[];
  /** Tool search limits of the session's environment; absent: its host tools are never deferred. */
  tool_search?: ToolSearchLimits;
  /** Set when the session is offered the Skill tool. */
  skills?: true;
  /** Deferred host tools ToolSearch has loaded, in the order found. Absent: none. */
  loaded_tools?: string[];
  /** What the session spent, its budget, and at a root its tree's reports. Absent: nothing spent and no budget. */
  usage?: CarriedUsage;
}

export interface RefusedMessage {
  id: string;
  reason: string;
}

export interface SessionInput extends SessionOptions {
  carried?: CarriedState;
  /** Set by `session.fork()`: where the session was forked from (new data: no history before forks holds it). */
  forked_from?: ForkOrigin;
  /** Sub-agents of an `arborSession`: where the session runs, from its parent (saves asking the worker). */
  environment?: SessionEnvironment;
}

/**
 * Who queued a message: a person or a client (the SDK, the CLI, a parent session's sendMessageToSubAgent), or the
 * session itself (a goal continuation, a loop or cron firing, a finished sub-agent's notice).
 */
export type MessageSource = 'user' | 'goal' | 'loop' | 'cron' | 'sub-agent';

/** A message waiting for a turn. The id is its dedupe key. */
export interface InboxMessage {
  id: string;
  content: string;
  source: MessageSource;
  /** Sent with mode `steer`: a running turn takes it at its next model call. */
  steer?: true;
}

/** A queued message as carried across continue-as-new: runs from before `source` was kept carry none. */
export type CarriedInboxMessage = Omit<InboxMessage, 'source'> & { source?: MessageSource };

export const userMessageSchema = lazy(() =>
  z.object({
    id: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('Its dedupe key: a message sent twice with one id is delivered once; omitted: one is made'),
    content: z.string().trim().min(1, 'message is empty').max(maxMessageLength).describe('The text (not blank)'),
    mode: deliveryModeSchema()
      .optional()
      .describe(
        'queue (default): waits for the running turn to end; steer: joins the running turn at its next model call; interrupt: cancels the running turn and starts a new one with it',
      ),
    stop_sub_agents: z
      .boolean()
      .optional()
      .describe('With mode interrupt: also stop the sub-agents the session runs (default: they keep running)'),
  }),
);
export type UserMessage = z.infer<ReturnType<typeof userMessageSchema>>;

export interface LastMessage {
  id: string;
  role: TranscriptRole;
  content: string;
  created_at: string;
}

export interface SessionSnapshot {
  session_id: string;
  owner: string;
  title: string;
  status: SessionStatus;
  parent_session_id: string | null;
  root_session_id: string;
  model: string;
  created_at: string;
  updated_at: string;
  turn: number;
  /** When the latest turn began, in workflow time (null before the first turn). */
  turn_started_at: string | null;
  message_count: number;
  queued_messages: number;
  last_message: LastMessage | null;
  last_error: string | null;
  todos: TodoItem[];
  depth: number;
  mode: 'async' | 'sync' | null;
  ancestor_session_ids: string[];
  children: ChildSession[];
  plan: { title: string | null; revision: number; size: number } | null;
  /** Set while the wait tool sleeps: until when, and why. */
  waiting: { until: string; reason: string | null } | null;
  /** Question sets waiting for the user: this session's, and at a root session those of every session below it. */
  pending_questions: QuestionSet[];
  /** Root sessions: the tree's task board, as TaskList shows it. */
  tasks: { id: string; subject: string; status: TaskStatus; owner: string | null; blockedBy: string[] }[];
  goals: Goal[];
  loops: Loop[];
  cron_jobs: CronJob[];
  /** The seq of the newest event (0 before the first); read events with the events query or the SDK. */
  last_event_seq: number;
  /**
   * `plan` until the `executePlan` update switches the session to `execute` (the default); see work-modes.ts. Absent
   * from workers older than Plan mode, whose sessions are all in Execute mode.
   */
  work_mode?: WorkMode;
  /** Present while the session's host tools are deferred: how many, and those ToolSearch has loaded. */
  tools?: { deferred: number; loaded: string[] };
  /** The session's tool profile. Absent from workers older than profiles, whose sessions all have `all`. */
  profile?: ProfileName;
  /** Tokens and cost: this session's, and at a root its tree's; its budget. Absent from workers older than usage. */
  usage?: UsageSnapshot;
  /** Set in a session made by `session.fork()`: the session it was forked from, and at which position. */
  forked_from?: ForkOrigin;
}

/** Where a forked session came from: the source session and the transcript position it was forked at. */
export interface ForkOrigin {
  session_id: string;
  /** Entries of the source's transcript the fork began with (0: a sub-agent started again from its instruction). */
  position: number;
}

/**
 * Where a message id stands: never seen, waiting in the inbox, taken into a turn, or refused (a malformed
 * `userMessage` signal that carried this id: the session's events say why).
 */
export type MessageState = 'unknown' | 'queued' | 'handled' | 'refused';

/** What the `sendMessage` update returns: the message's id (given, or made by the session) and where it stands. */
export interface MessageReceipt {
  message_id: string;
  /** `handled` only for an id sent before and already taken into a turn (sending again delivers it once). */
  state: 'queued' | 'handled';
}

export interface TranscriptRange {
  offset?: number;
  limit?: number;
}

/**
 * A page of the transcript query. With `max_chars`, the page stops before the entry that would take it past that
 * many characters (it always holds at least one entry): a whole range can pass the 4 MB a gRPC message may carry.
 * Without it, the whole range, as older clients ask.
 */
export interface TranscriptPageRequest extends TranscriptRange {
  max_chars?: number;
}

/**
 * A page of the `transcriptPage` query. Positions are the session's, not the run's: they stay valid when the session
 * continues as new and leaves the oldest entries behind, so `message_count` from a snapshot, given back as an offset
 * later, still points at the entries that followed it.
 */
export interface TranscriptPage {
  entries: TranscriptEntry[];
  /** The position of `entries[0]`: the one asked for, or the oldest still held when earlier ones were compacted away. */
  offset: number;
  /** The entries the session has had in all: the `message_count` of its snapshot. */
  total: number;
  /** The run that answered. Later pages of one read ask the same run, so a continue-as-new between them mixes nothing. */
  run_id: string;
}

/** What a session's workflow returns when it ends. */
export interface SessionResult {
  session_id: string;
  status: SessionStatus;
  final_message: string | null;
  /** Why a failed session failed (its last turn's error, such as a model the endpoint does not serve), when it says. */
  error?: string;
}

/**
 * The workflow type new sessions start as. Registered names are part of the durable protocol: never renamed, and
 * kept registered while sessions of that type may still run.
 */
export const sessionWorkflowType = 'arborSessionV3';
/** The types sessions started as before it, newest first; workers still run them (see `session-changes.ts`). */
export const sessionWorkflowTypeV2 = 'arborSessionV2';
export const previousSessionWorkflowType = 'arborSession';
export const legacySessionWorkflowType = 'sessionWorkflow';
