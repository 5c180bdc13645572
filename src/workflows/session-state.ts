import {
  closedStatuses,
  type ChildSession,
  type CarriedState,
  type InboxMessage,
  type MessageState,
  type SessionSnapshot,
  type SessionStatus,
  type StoredPlan,
  type TranscriptEntry,
  type TranscriptPage,
  type TranscriptPageRequest,
  type UserMessage,
} from '../shared/session.js';
import { utf8Length } from '../shared/utf8.js';
import type { TodoItem } from '../shared/tools/todo.js';
import type { QuestionSet } from '../shared/tools/ask-user.js';
import type { ResolvedAnswer } from '../shared/answers.js';
import { eventTextLimits } from '../shared/events.js';
import type { TreeQuestionsChange } from '../shared/questions.js';
import { EventLog, shorten } from './event-log.js';
import { demoModelName, type SessionEnvironment } from '../shared/model.js';
import { TaskBoard } from './task-board.js';
import { Goals, goalContinuationPrefix } from './goals.js';
import { Loops, loopFiringPrefix, type LoopLimits } from './loops.js';
import { CronJobs } from './cron-jobs.js';
import { toolNames } from '../shared/tools/registry.js';
import { defaultLoopMaxAgeSeconds, defaultLoopMinIntervalSeconds } from '../shared/tools/loops.js';

export interface StateClock {
  now(): Date;
  newId(): string;
}

export interface SessionIdentity {
  session_id: string;
  owner: string;
  title: string;
  parent_session_id: string | null;
  root_session_id: string;
  ancestor_session_ids: string[];
  depth: number;
  mode: 'async' | 'sync' | null;
}

/** Everything a session knows, kept as plain data so it survives replay and continue-as-new. Pure: no Temporal calls. */
export class SessionState {
  transcript: TranscriptEntry[];
  inbox: InboxMessage[];
  status: SessionStatus = 'idle';
  turn: number;
  model: string;
  searchAttributes: boolean;
  unavailableTools: string[];
  todos: TodoItem[];
  children: ChildSession[];
  plan: StoredPlan | null;
  waiting: { until: string; reason: string | null } | null = null;
  /** Set by stopConversation: the turn ends after this round's tool calls. */
  endTurnRequested = false;
  lastError: string | null = null;
  /** Question sets this session's askUser calls wait on; `answers` is set when the user has answered. */
  questions: (QuestionSet & { answers?: ResolvedAnswer[] })[] = [];
  /** Root sessions: the question sets pending anywhere below, as the asking sessions reported them. */
  treeQuestions: (QuestionSet & { ancestor_session_ids: string[] })[];
  /** How long askUser waits for an answer (this deployment's setting); null waits for as long as it takes. */
  questionTimeoutSeconds: number | null;
  readonly events: EventLog;
  /** The tree's task board; only the root session's is used. */
  readonly board: TaskBoard;
  readonly goals: Goals;
  readonly loops: Loops;
  /** This deployment's loop limits (from the worker's environment when the session began). */
  loopLimits: LoopLimits;
  readonly crons: CronJobs;
  /** The time zone cron expressions are read in (this deployment's ARBOR_CRON_TIMEZONE, default UTC). */
  cronTimezone: string;
  /** The loop whose firing started the running turn (completeLoop ends it). */
  runningLoopId: string | null = null;
  readonly createdAt: string;
  updatedAt: string;
  /** When the latest turn began (null before the first). */
  turnStartedAt: string | null;
  /** Handled user messages no longer in the transcript (compacted away at continue-as-new), oldest first. */
  private readonly forgottenMessageIds: ReadonlySet<string>;
  /** The session's position of `transcript[0]`: how many entries earlier runs compacted away (less their notices). */
  private readonly transcriptStart: number;

  constructor(
    readonly identity: SessionIdentity,
    private readonly clock: StateClock,
    carried?: CarriedState,
  ) {
    const now = clock.now().toISOString();
    this.transcript = carried?.transcript ?? [];
    this.inbox = carried?.inbox ?? [];
    this.turn = carried?.turn ?? 0;
    this.model = carried?.model ?? '';
    this.searchAttributes = carried?.search_attributes ?? false;
    this.unavailableTools = carried?.unavailable_tools ?? [];
    this.todos = carried?.todos ?? [];
    this.children = carried?.children ?? [];
    this.plan = carried?.plan ?? null;
    this.treeQuestions = carried?.tree_questions ?? [];
    this.questionTimeoutSeconds = carried?.question_timeout_seconds ?? null;
    this.events = new EventLog(identity.session_id, () => clock.now(), carried?.events);
    this.goals = new Goals(carried?.goals ?? [], () => clock.now(), () => clock.newId(), (goal) =>
      this.events.emit({ type: 'goal_updated', goal_id: goal.goal_id, status: goal.status, completed_turns: goal.completed_turns, max_turns: goal.max_turns }),
    );
    this.loops = new Loops(carried?.loops ?? [], () => clock.now(), () => clock.newId(), (loop) =>
      this.events.emit({ type: 'loop_updated', loop_id: loop.loop_id, status: loop.status, firings: loop.firings, next_fire_at: loop.next_fire_at }),
    );
    this.crons = new CronJobs(carried?.cron_jobs ?? [], () => clock.now(), () => clock.newId());
    this.cronTimezone = carried?.cron_timezone ?? 'UTC';
    this.loopLimits = {
      minIntervalSeconds: carried?.loop_limits?.min_interval_seconds ?? defaultLoopMinIntervalSeconds,
      maxAgeSeconds: carried?.loop_limits?.max_age_seconds ?? defaultLoopMaxAgeSeconds,
    };
    this.board = new TaskBoard(() => clock.now(), carried?.task_board, (change) => this.events.emit({ type: 'task_updated', ...change }));
    this.createdAt = carried?.created_at ?? now;
    this.updatedAt = now;
    this.turnStartedAt = carried?.turn_started_at ?? null;
    this.forgottenMessageIds = new Set(carried?.forgotten_message_ids);
    this.transcriptStart = carried?.transcript_start ?? 0;
  }

  /** Takes in where the session runs, as the worker (or, for a sub-agent, its parent) described it. */
  applyEnvironment(environment: SessionEnvironment): void {
    this.model = environment.model;
    this.searchAttributes = environment.search_attributes;
    this.unavailableTools = environment.unavailable_tools ?? [];
    this.questionTimeoutSeconds = environment.question_timeout_seconds ?? null;
    this.loopLimits = {
      minIntervalSeconds: environment.loop_min_interval_seconds ?? this.loopLimits.minIntervalSeconds,
      maxAgeSeconds: environment.loop_max_age_seconds ?? this.loopLimits.maxAgeSeconds,
    };
    this.cronTimezone = environment.cron_timezone ?? this.cronTimezone;
  }

  /** The environment a sub-agent inherits: this session's deployment settings, with the model it was asked to use. */
  environmentFor(requestedModel?: string): SessionEnvironment {
    const model = requestedModel ?? this.model;
    return {
      model,
      provider: model === demoModelName ? 'demo' : 'openai-compatible',
      search_attributes: this.searchAttributes,
      ...(this.unavailableTools.length > 0 ? { unavailable_tools: [...this.unavailableTools] } : {}),
      ...(this.questionTimeoutSeconds !== null ? { question_timeout_seconds: this.questionTimeoutSeconds } : {}),
      loop_min_interval_seconds: this.loopLimits.minIntervalSeconds,
      loop_max_age_seconds: this.loopLimits.maxAgeSeconds,
      cron_timezone: this.cronTimezone,
    };
  }

  /** Queues a user message; a message whose id was already seen is ignored, so a retried send never doubles. */
  runningChildren(): ChildSession[] {
    return this.children.filter((child) => !closedStatuses.includes(child.status));
  }

  updateChild(id: string, update: Partial<ChildSession>): void {
    const child = this.children.find((candidate) => candidate.sub_session_id === id);
    if (!child) return;
    Object.assign(child, update, { updated_at: this.clock.now().toISOString() });
    this.touch();
  }

  enqueue(message: UserMessage): void {
    const id = message.id ?? this.clock.newId();
    if (this.messageState(id) !== 'unknown') return;
    this.inbox.push({ id, content: message.content });
    this.touch();
  }

  /**
   * Takes the queued messages into a turn. A goal continuation gives way to anything else queued with it (it is made
   * again after the turn). With `maxChars`, a turn takes messages (at least one) up to that many characters; the rest
   * stay queued for the next turn, so however many pile up, one model call's input stays under Temporal's payload limit.
   */
  takeInbox(maxChars?: number): InboxMessage[] {
    const others = this.inbox.filter((message) => !message.id.startsWith(goalContinuationPrefix));
    let taken = others.length > 0 ? others : this.inbox;
    this.inbox = [];
    if (maxChars !== undefined) {
      let chars = 0;
      const cut = taken.findIndex((message, index) => (chars += message.content.length) > maxChars && index > 0);
      if (cut !== -1) {
        this.inbox = taken.slice(cut);
        taken = taken.slice(0, cut);
      }
    }
    const firing = [...taken].reverse().find((message) => message.id.startsWith(loopFiringPrefix));
    this.runningLoopId = firing ? firing.id.slice(loopFiringPrefix.length, firing.id.lastIndexOf(':')) : null;
    return taken;
  }

  messageState(id: string): MessageState {
    if (this.inbox.some((message) => message.id === id)) return 'queued';
    for (let i = this.transcript.length - 1; i >= 0; i--) {
      const entry = this.transcript[i]!;
      if (entry.role === 'user' && entry.id === id) return 'handled';
    }
    return this.forgottenMessageIds.has(id) ? 'handled' : 'unknown';
  }

  /** Adds a transcript entry and its events (tool results have theirs emitted as each call finishes; see `toolFinished`). */
  append(entry: Omit<TranscriptEntry, 'id' | 'created_at'> & { id?: string }, options: { emit?: boolean } = {}): TranscriptEntry {
    const full: TranscriptEntry = { ...entry, id: entry.id ?? this.clock.newId(), created_at: this.clock.now().toISOString() };
    this.transcript.push(full);
    this.touch();
    if (options.emit !== false) this.emitEntry(full);
    return full;
  }

  /** Every built-in tool this deployment can serve (in registry order), less those its environment lacks. */
  servedTools(): string[] {
    return toolNames.filter((name) => !this.unavailableTools.includes(name));
  }

  toolFinished(call: { id: string; name: string }, outcome: { content: string; is_error: boolean }): void {
    const { text, truncated } = shorten(outcome.content, eventTextLimits.tool);
    this.events.emit({ type: 'tool_result', tool_call_id: call.id, name: call.name, content: text, is_error: outcome.is_error, ...(truncated ? { truncated } : {}) });
  }

  setStatus(status: SessionStatus): void {
    const from = this.status;
    this.status = status;
    this.touch();
    if (from !== status) this.events.emit({ type: 'status_changed', from, to: status });
  }

  setTodos(todos: TodoItem[]): void {
    this.todos = todos;
    this.touch();
    this.events.emit({ type: 'todos_updated', todos });
  }

  setPlan(plan: StoredPlan | null): void {
    this.plan = plan;
    this.touch();
    this.events.emit({ type: 'plan_updated', title: plan?.title ?? null, revision: plan?.revision ?? 0, size: plan?.content.length ?? 0 });
  }

  isRoot(): boolean {
    return this.identity.root_session_id === this.identity.session_id;
  }

  /** Root sessions: a session below asked, or no longer waits on, a question set. */
  applyTreeQuestions(change: TreeQuestionsChange): void {
    if (change.kind === 'asked') {
      const { question_set, ancestor_session_ids } = change;
      if (this.treeQuestions.some((set) => set.question_set_id === question_set.question_set_id)) return;
      this.treeQuestions.push({ ...question_set, ancestor_session_ids });
    } else {
      this.treeQuestions = this.treeQuestions.filter((set) => set.question_set_id !== change.question_set_id);
    }
    this.touch();
  }

  /** Forgets the question sets of a session below that has ended, and of the sessions under it. */
  dropTreeQuestionsOf(sessionId: string): void {
    this.treeQuestions = this.treeQuestions.filter((set) => set.session_id !== sessionId && !set.ancestor_session_ids.includes(sessionId));
  }

  /** The question sets waiting for the user: this session's own, then (at the root) those of sessions below. */
  pendingQuestions(): QuestionSet[] {
    const own = this.questions.filter((set) => !set.answers).map(({ answers: _answers, ...set }) => set);
    const below = this.treeQuestions.map(({ ancestor_session_ids: _ancestors, ...set }) => set);
    return [...own, ...below];
  }

  private emitEntry(entry: TranscriptEntry): void {
    if (entry.role === 'user' || entry.role === 'assistant') {
      if (entry.content) {
        const { text, truncated } = shorten(entry.content, eventTextLimits.message);
        this.events.emit({ type: 'message', role: entry.role, content: text, ...(truncated ? { truncated } : {}) });
      }
      for (const call of entry.tool_calls ?? []) {
        const { text, truncated } = shorten(call.arguments, eventTextLimits.tool);
        this.events.emit({ type: 'tool_call', tool_call_id: call.id, name: call.name, arguments: text, ...(truncated ? { truncated } : {}) });
      }
    } else if (entry.role === 'notice' || entry.role === 'error') {
      this.events.emit({ type: entry.role, content: shorten(entry.content, eventTextLimits.message).text });
    }
  }

  transcriptRange(range: TranscriptPageRequest = {}): TranscriptEntry[] {
    const offset = Math.max(0, range.offset ?? 0);
    const end = range.limit === undefined ? this.transcript.length : Math.min(this.transcript.length, offset + Math.max(0, range.limit));
    const maxChars = range.max_chars;
    if (typeof maxChars !== 'number' || !(maxChars > 0)) return this.transcript.slice(offset, end);
    let stop = offset;
    for (let chars = 0; stop < end; stop++) {
      chars += entryChars(this.transcript[stop]!);
      if (chars > maxChars && stop > offset) break;
    }
    return this.transcript.slice(offset, stop);
  }

  /** A page by the session's positions; a position before the oldest entry still held reads from that entry. */
  transcriptPage(request: TranscriptPageRequest = {}, runId: string): TranscriptPage {
    const asked = typeof request.offset === 'number' && Number.isFinite(request.offset) ? Math.floor(request.offset) : 0;
    const offset = Math.max(this.transcriptStart, asked);
    const entries = this.transcriptRange({ ...request, offset: offset - this.transcriptStart });
    return { entries, offset, total: this.messageCount(), run_id: runId };
  }

  /** The entries the session has had in all, over every run. */
  private messageCount(): number {
    return this.transcriptStart + this.transcript.length;
  }

  /** The text a caller sees as the session's answer: the last assistant message with content. */
  finalMessage(): string | null {
    for (let i = this.transcript.length - 1; i >= 0; i--) {
      const entry = this.transcript[i]!;
      if (entry.role === 'assistant' && entry.content) return entry.content;
    }
    return null;
  }

  snapshot(): SessionSnapshot {
    const last = this.transcript[this.transcript.length - 1];
    return {
      ...this.identity,
      status: this.status,
      model: this.model,
      created_at: this.createdAt,
      updated_at: this.updatedAt,
      turn: this.turn,
      turn_started_at: this.turnStartedAt,
      message_count: this.messageCount(),
      queued_messages: this.inbox.length,
      last_message: last ? { id: last.id, role: last.role, content: last.content, created_at: last.created_at } : null,
      last_error: this.lastError,
      todos: this.todos,
      children: this.children,
      plan: this.plan ? { title: this.plan.title, revision: this.plan.revision, size: this.plan.content.length } : null,
      waiting: this.waiting,
      pending_questions: this.pendingQuestions(),
      tasks: this.isRoot() ? this.board.list() : [],
      goals: this.goals.goals,
      loops: this.loops.loops,
      cron_jobs: this.crons.jobs,
      last_event_seq: this.events.lastSeq,
    };
  }

  /** Whether the queued messages are few enough to carry into a new run (see `carriedInboxBytes`). */
  inboxFitsCarry(): boolean {
    let bytes = 0;
    for (const message of this.inbox) {
      bytes += utf8Length(message.content) + utf8Length(message.id);
      if (bytes > carriedInboxBytes) return false;
    }
    return true;
  }

  /**
   * The state the next run starts from, within `carriedStateBytes`: everything but the transcript is carried whole
   * (of closed sub-agents, the newest `carriedClosedChildren`), and the transcript's newest entries fill what is left.
   */
  carry(): CarriedState {
    const rest = this.carriedRest();
    const room = carriedStateBytes - utf8Length(JSON.stringify(rest));
    const transcript = compactTranscript(this.transcript, this.clock.now().toISOString(), Math.max(minimumCarriedTranscriptBytes, Math.min(carriedTranscriptBytes, room)));
    const forgotten = this.forgottenMessageIdsAfter(transcript);
    const start = this.transcriptStart + this.transcript.length - transcript.length;
    return {
      transcript,
      ...(start > 0 ? { transcript_start: start } : {}),
      ...(forgotten.length > 0 ? { forgotten_message_ids: forgotten } : {}),
      ...rest,
    };
  }

  private carriedRest(): Omit<CarriedState, 'transcript' | 'transcript_start' | 'forgotten_message_ids'> {
    const closed = this.children.filter((child) => closedStatuses.includes(child.status));
    const droppedClosed = new Set(closed.slice(0, Math.max(0, closed.length - carriedClosedChildren)));
    return {
      inbox: this.inbox,
      turn: this.turn,
      model: this.model,
      search_attributes: this.searchAttributes,
      ...(this.unavailableTools.length > 0 ? { unavailable_tools: this.unavailableTools } : {}),
      created_at: this.createdAt,
      ...(this.turnStartedAt ? { turn_started_at: this.turnStartedAt } : {}),
      todos: this.todos,
      children: droppedClosed.size > 0 ? this.children.filter((child) => !droppedClosed.has(child)) : this.children,
      plan: this.plan,
      events: this.events.carry(),
      ...(this.board.tasks.length > 0 ? { task_board: this.board.carry() } : {}),
      ...(this.goals.goals.length > 0 ? { goals: this.goals.goals } : {}),
      ...(this.loops.loops.length > 0 ? { loops: this.loops.loops } : {}),
      ...(this.crons.jobs.length > 0 ? { cron_jobs: this.crons.jobs } : {}),
      ...(this.cronTimezone !== 'UTC' ? { cron_timezone: this.cronTimezone } : {}),
      loop_limits: { min_interval_seconds: this.loopLimits.minIntervalSeconds, max_age_seconds: this.loopLimits.maxAgeSeconds },
      ...(this.treeQuestions.length > 0 ? { tree_questions: this.treeQuestions } : {}),
      ...(this.questionTimeoutSeconds !== null ? { question_timeout_seconds: this.questionTimeoutSeconds } : {}),
    };
  }

  /** The ids of handled user messages `kept` leaves out, with those forgotten before, newest last and bounded. */
  private forgottenMessageIdsAfter(kept: readonly TranscriptEntry[]): string[] {
    const keptIds = new Set(kept.map((entry) => entry.id));
    const dropped = this.transcript.flatMap((entry) => (entry.role === 'user' && entry.id && !keptIds.has(entry.id) ? [entry.id] : []));
    return [...this.forgottenMessageIds, ...dropped].slice(-carriedForgottenMessageIds);
  }

  private touch(): void {
    this.updatedAt = this.clock.now().toISOString();
  }
}

/** The most ids of compacted-away user messages a continue-as-new carries (ids are at most 200 characters). */
export const carriedForgottenMessageIds = 1_000;

/** The most transcript entries a continue-as-new carries: the conversation's recent part, which the model sees next. */
export const carriedTranscriptEntries = 400;

/**
 * The most bytes (UTF-8) of transcript a continue-as-new carries (contents and tool calls). Entries are up to 200,000
 * characters (a message), 100,000 (a tool result) or 1 MB (a model answer), so 400 of them could far exceed Temporal's
 * 2 MB payload limit, and a continue-as-new over it would leave the session stuck. Counted in bytes, not characters:
 * a character of Chinese or Japanese takes three.
 */
export const carriedTranscriptBytes = 1_000_000;

/**
 * The most bytes the whole carried state may take. The transcript gets what the rest leaves, up to
 * `carriedTranscriptBytes`; the continue-as-new input's other fields (a system prompt of at most 200,000 characters,
 * the tool list) fit in what is left of Temporal's 2 MB.
 */
export const carriedStateBytes = 1_300_000;

/**
 * The most bytes of queued messages a continue-as-new carries. Messages are up to 200,000 characters (600 KB of
 * Chinese), so a long queue waits for turns to take some of it before the session continues as new.
 */
export const carriedInboxBytes = 500_000;

/** The least transcript a continue-as-new carries, however large the rest of the state. */
const minimumCarriedTranscriptBytes = 100_000;

/** The most closed sub-agents a continue-as-new carries in the session's record of its children (the newest). */
export const carriedClosedChildren = 100;

/**
 * Keeps a long conversation's newest entries across continue-as-new, at most `carriedTranscriptEntries` of them and
 * `maxBytes` bytes, starting at a user message so no tool result is cut from its call, with a notice of how much was
 * left behind. The carried state then stays well under Temporal's 2 MB payload limit however long the session lives.
 */
export function compactTranscript(transcript: TranscriptEntry[], now: string, maxBytes = carriedTranscriptBytes): TranscriptEntry[] {
  let cut = Math.max(0, transcript.length - carriedTranscriptEntries);
  let bytes = 0;
  for (let index = transcript.length - 1; index >= cut; index--) {
    bytes += entryBytes(transcript[index]!);
    if (bytes > maxBytes) {
      cut = index + 1;
      break;
    }
  }
  if (cut === 0) return transcript;
  const isUser = (index: number) => transcript[index]!.role === 'user';
  let start = cut;
  while (start < transcript.length && !isUser(start)) start++;
  if (start === transcript.length) {
    // One turn longer than the whole allowance: keep it from its user message, if that fits; else from the first of
    // its model answers that does (so no tool result is kept without its call).
    for (start = cut; start > 0 && !isUser(start); start--);
    if (bytesFrom(transcript, start) > maxBytes) {
      for (start = cut; start < transcript.length && transcript[start]!.role !== 'assistant'; start++);
    }
  }
  const kept = transcript.slice(start);
  const dropped = transcript.length - kept.length;
  const notice: TranscriptEntry = {
    id: `compacted:${transcript[start - 1]?.id ?? 'start'}`,
    role: 'notice',
    content: `${dropped} earlier transcript entries were compacted away when the session continued as new; the conversation goes on from here.`,
    created_at: now,
  };
  return [notice, ...kept];
}

function entryChars(entry: TranscriptEntry): number {
  let chars = entry.content.length;
  for (const call of entry.tool_calls ?? []) chars += call.id.length + call.name.length + call.arguments.length;
  return chars;
}

function entryBytes(entry: TranscriptEntry): number {
  let bytes = utf8Length(entry.content);
  for (const call of entry.tool_calls ?? []) bytes += utf8Length(call.id) + utf8Length(call.name) + utf8Length(call.arguments);
  return bytes;
}

function bytesFrom(transcript: TranscriptEntry[], start: number): number {
  let bytes = 0;
  for (let index = start; index < transcript.length; index++) bytes += entryBytes(transcript[index]!);
  return bytes;
}
