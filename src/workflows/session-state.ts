import {
  closedStatuses,
  type ChildSession,
  type CarriedState,
  type ForkOrigin,
  type InboxMessage,
  type MessageState,
  type RefusedMessage,
  type SessionSnapshot,
  type SessionStatus,
  type StoredPlan,
  type TranscriptEntry,
} from '../shared/session.js';
import { utf8Length } from '../shared/utf8.js';
import type { TodoItem } from '../shared/tools/todo.js';
import type { QuestionSet } from '../shared/tools/ask-user.js';
import type { ResolvedAnswer } from '../shared/answers.js';
import type { ApprovalPolicy } from '../shared/approvals.js';
import { defaultWorkMode, type WorkMode } from '../shared/work-modes.js';
import type { ProfileName } from '../shared/tools/profiles/names.js';
import { eventTextLimits } from '../shared/events.js';
import type { TreeQuestionsChange } from '../shared/questions.js';
import { EventLog, shorten } from './event-log.js';
import type { SessionEnvironment } from '../shared/model.js';
import { TaskBoard } from './task-board.js';
import { Goals } from './goals.js';
import { loopOfFiring, Loops } from './loops.js';
import { CronJobs } from './cron-jobs.js';
import { Transcript, type CarriedTranscript } from './transcript.js';
import { carriedMessage } from './inbox.js';
import type { StateClock } from './state-clock.js';
import type { SessionIdentity } from './session-identity.js';
import { DeferredTools } from './deferred-tools.js';
import { UsageLedger } from './usage-ledger.js';
import { carriedSettings, settingsFromCarried, settingsFromEnvironment, type DeploymentSettings } from './deployment-settings.js';

/** Everything a session knows, kept as plain data so it survives replay and continue-as-new. Pure: no Temporal calls. */
export class SessionState {
  readonly transcript: Transcript;
  inbox: InboxMessage[];
  status: SessionStatus = 'idle';
  turn: number;
  /** Where the session runs (this deployment's model, limits and time zone). */
  settings: DeploymentSettings;
  todos: TodoItem[];
  children: ChildSession[];
  plan: StoredPlan | null;
  waiting: { until: string; reason: string | null } | null = null;
  /** Set by stopConversation: the turn ends after this round's tool calls. */
  endTurnRequested = false;
  lastError: string | null = null;
  /** What a host tool call that needs approval does (the session option `approval`, handed to sub-agents). */
  approvalPolicy: ApprovalPolicy = 'ask';
  /** Started with `neutral_titles`: what it makes that Temporal shows unencrypted (sub-agents, automations) has no title. */
  neutralTitles = false;
  /** Plan or Execute mode (the session option `work_mode`; `executePlan` switches Plan to Execute). */
  workMode: WorkMode = defaultWorkMode;
  /** Whose tools the model is shown (the session option `profile`, handed to sub-agents); see session-profile.ts. */
  profile: ProfileName = 'all';
  /** Question sets this session's askUser calls wait on; `answers` is set when the user has answered. */
  questions: (QuestionSet & { answers?: ResolvedAnswer[] })[] = [];
  /** Root sessions: the question sets pending anywhere below, as the asking sessions reported them. */
  treeQuestions: (QuestionSet & { ancestor_session_ids: string[] })[];
  readonly events: EventLog;
  /** The tree's task board; only the root session's is used. */
  readonly board: TaskBoard;
  readonly goals: Goals;
  readonly loops: Loops;
  readonly crons: CronJobs;
  /** The loop whose firing started the running turn (completeLoop ends it). */
  runningLoopId: string | null = null;
  readonly createdAt: string;
  updatedAt: string;
  /** When the latest turn began (null before the first). */
  turnStartedAt: string | null;
  /** The newest ids of refused message signals, and why (see `refuseMessage`). */
  refusedMessages: RefusedMessage[];
  /** Host tools held back from the model until ToolSearch loads them. */
  readonly deferredTools: DeferredTools;
  /** Tokens and cost spent, the budget, and at a root the tree's reports and allowances. */
  readonly usage: UsageLedger;
  /** The session this one was forked from, and at which transcript position (the start option `forked_from`). */
  forkedFrom: ForkOrigin | null = null;

  constructor(
    readonly identity: SessionIdentity,
    private readonly clock: StateClock,
    carried?: CarriedState,
  ) {
    const now = clock.now().toISOString();
    this.transcript = new Transcript(clock, carried);
    this.inbox = (carried?.inbox ?? []).map(carriedMessage);
    this.turn = carried?.turn ?? 0;
    this.settings = settingsFromCarried(carried);
    this.todos = carried?.todos ?? [];
    this.children = carried?.children ?? [];
    this.plan = carried?.plan ?? null;
    this.treeQuestions = carried?.tree_questions ?? [];
    this.events = new EventLog(identity.session_id, () => clock.now(), carried?.events);
    this.goals = new Goals(
      carried?.goals ?? [],
      () => clock.now(),
      () => clock.newId(),
      (goal) =>
        this.events.emit({
          type: 'goal_updated',
          goal_id: goal.goal_id,
          status: goal.status,
          completed_turns: goal.completed_turns,
          max_turns: goal.max_turns,
        }),
    );
    this.loops = new Loops(
      carried?.loops ?? [],
      () => clock.now(),
      () => clock.newId(),
      (loop) =>
        this.events.emit({
          type: 'loop_updated',
          loop_id: loop.loop_id,
          status: loop.status,
          firings: loop.firings,
          next_fire_at: loop.next_fire_at,
        }),
    );
    this.crons = new CronJobs(
      carried?.cron_jobs ?? [],
      () => clock.now(),
      () => clock.newId(),
    );
    this.board = new TaskBoard(
      () => clock.now(),
      carried?.task_board,
      (change) => this.events.emit({ type: 'task_updated', ...change }),
    );
    this.createdAt = carried?.created_at ?? now;
    this.updatedAt = now;
    this.turnStartedAt = carried?.turn_started_at ?? null;
    this.refusedMessages = carried?.refused_messages ?? [];
    this.deferredTools = new DeferredTools(carried?.loaded_tools);
    this.usage = new UsageLedger(identity, (event) => this.events.emit(event), carried?.usage);
  }

  /** Takes in where the session runs, as the worker (or, for a sub-agent, its parent) described it. */
  applyEnvironment(environment: SessionEnvironment): void {
    this.settings = settingsFromEnvironment(environment);
  }

  runningChildren(): ChildSession[] {
    return this.children.filter((child) => !closedStatuses.includes(child.status));
  }

  updateChild(id: string, update: Partial<ChildSession>): void {
    const child = this.children.find((candidate) => candidate.sub_session_id === id);
    if (!child) return;
    Object.assign(child, update, { updated_at: this.clock.now().toISOString() });
    this.touch();
  }

  /** Queues a message; a message whose id was already seen is ignored, so a retried send never doubles. */
  enqueue(message: Omit<InboxMessage, 'id'> & { id?: string | undefined }): void {
    const id = message.id ?? this.clock.newId();
    const state = this.messageState(id);
    if (state === 'queued' || state === 'handled') return;
    // A message refused before and now sent well is no longer refused.
    if (state === 'refused') this.refusedMessages = this.refusedMessages.filter((refused) => refused.id !== id);
    this.inbox.push({ id, content: message.content, source: message.source, ...(message.steer ? { steer: true as const } : {}) });
    this.touch();
  }

  /** A message the session could not take: an error event with the reason, and its id (if any) answers `refused`. */
  refuseMessage(id: string | undefined, reason: string): void {
    const content = shorten(reason, eventTextLimits.message).text;
    this.events.emit({ type: 'error', content, ...(id !== undefined ? { message_id: id } : {}) });
    if (id === undefined) return;
    this.refusedMessages = [...this.refusedMessages.filter((refused) => refused.id !== id), { id, reason: content }].slice(
      -carriedRefusedMessages,
    );
    this.touch();
  }

  /**
   * Takes the queued messages into a turn. A goal continuation gives way to anything else queued with it (it is made
   * again after the turn). With `maxChars`, a turn takes messages (at least one) up to that many characters; the rest
   * stay queued for the next turn, so however many pile up, one model call's input stays under Temporal's payload limit.
   */
  takeInbox(maxChars?: number): InboxMessage[] {
    const others = this.inbox.filter((message) => message.source !== 'goal');
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
    const firing = [...taken].reverse().find((message) => message.source === 'loop');
    this.runningLoopId = firing ? loopOfFiring(firing.id) : null;
    return taken;
  }

  messageState(id: string): MessageState {
    if (this.inbox.some((message) => message.id === id)) return 'queued';
    if (this.transcript.hasHandled(id)) return 'handled';
    return this.refusedMessages.some((refused) => refused.id === id) ? 'refused' : 'unknown';
  }

  /** Adds a transcript entry and its events (tool results have theirs emitted as each call finishes; see `toolFinished`). */
  append(entry: Omit<TranscriptEntry, 'id' | 'created_at'> & { id?: string }, options: { emit?: boolean } = {}): TranscriptEntry {
    const full = this.transcript.append(entry);
    this.touch();
    if (options.emit !== false) this.emitEntry(full);
    return full;
  }

  toolFinished(call: { id: string; name: string }, outcome: { content: string; is_error: boolean }): void {
    const { text, truncated } = shorten(outcome.content, eventTextLimits.tool);
    this.events.emit({
      type: 'tool_result',
      tool_call_id: call.id,
      name: call.name,
      content: text,
      is_error: outcome.is_error,
      ...(truncated ? { truncated } : {}),
    });
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
        const mcp = this.settings.hostTools?.tools.find((tool) => tool.name === call.name)?.mcp;
        this.events.emit({
          type: 'tool_call',
          tool_call_id: call.id,
          name: call.name,
          arguments: text,
          ...(truncated ? { truncated } : {}),
          ...(mcp ? { mcp } : {}),
        });
      }
    } else if (entry.role === 'notice' || entry.role === 'error') {
      this.events.emit({ type: entry.role, content: shorten(entry.content, eventTextLimits.message).text });
    }
  }

  snapshot(): SessionSnapshot {
    const last = this.transcript.last();
    return {
      ...this.identity,
      status: this.status,
      model: this.settings.model,
      created_at: this.createdAt,
      updated_at: this.updatedAt,
      turn: this.turn,
      turn_started_at: this.turnStartedAt,
      message_count: this.transcript.total(),
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
      work_mode: this.workMode,
      ...this.deferredTools.snapshot(),
      profile: this.profile,
      usage: this.usage.snapshot(),
      ...(this.forkedFrom ? { forked_from: this.forkedFrom } : {}),
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
    return { ...this.transcript.carry(carriedStateBytes - utf8Length(JSON.stringify(rest))), ...rest };
  }

  private carriedRest(): Omit<CarriedState, keyof CarriedTranscript> {
    const closed = this.children.filter((child) => closedStatuses.includes(child.status));
    const droppedClosed = new Set(closed.slice(0, Math.max(0, closed.length - carriedClosedChildren)));
    return {
      inbox: this.inbox,
      turn: this.turn,
      ...carriedSettings(this.settings),
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
      ...(this.treeQuestions.length > 0 ? { tree_questions: this.treeQuestions } : {}),
      ...(this.refusedMessages.length > 0 ? { refused_messages: this.refusedMessages } : {}),
      ...this.deferredTools.carry(),
      ...this.usage.carry(),
    };
  }

  private touch(): void {
    this.updatedAt = this.clock.now().toISOString();
  }
}

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

/** The most refused message ids a session remembers (and carries across continue-as-new), the newest. */
export const carriedRefusedMessages = 100;

/** The most closed sub-agents a continue-as-new carries in the session's record of its children (the newest). */
export const carriedClosedChildren = 100;
