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
  type TranscriptRange,
  type UserMessage,
} from '../shared/session.js';
import type { TodoItem } from '../shared/tools/todo.js';

export interface StateClock {
  now(): Date;
  newId(): string;
}

export interface SessionIdentity {
  session_id: string;
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
  readonly createdAt: string;
  updatedAt: string;

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
    this.createdAt = carried?.created_at ?? now;
    this.updatedAt = now;
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

  takeInbox(): InboxMessage[] {
    const taken = this.inbox;
    this.inbox = [];
    return taken;
  }

  messageState(id: string): MessageState {
    if (this.inbox.some((message) => message.id === id)) return 'queued';
    for (let i = this.transcript.length - 1; i >= 0; i--) {
      const entry = this.transcript[i]!;
      if (entry.role === 'user' && entry.id === id) return 'handled';
    }
    return 'unknown';
  }

  append(entry: Omit<TranscriptEntry, 'id' | 'created_at'> & { id?: string }): TranscriptEntry {
    const full: TranscriptEntry = { ...entry, id: entry.id ?? this.clock.newId(), created_at: this.clock.now().toISOString() };
    this.transcript.push(full);
    this.touch();
    return full;
  }

  setStatus(status: SessionStatus): void {
    this.status = status;
    this.touch();
  }

  transcriptRange(range: TranscriptRange = {}): TranscriptEntry[] {
    const offset = Math.max(0, range.offset ?? 0);
    const end = range.limit === undefined ? undefined : offset + Math.max(0, range.limit);
    return this.transcript.slice(offset, end);
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
      message_count: this.transcript.length,
      queued_messages: this.inbox.length,
      last_message: last ? { id: last.id, role: last.role, content: last.content, created_at: last.created_at } : null,
      last_error: this.lastError,
      todos: this.todos,
      children: this.children,
      plan: this.plan ? { title: this.plan.title, revision: this.plan.revision, size: this.plan.content.length } : null,
      waiting: this.waiting,
    };
  }

  carry(): CarriedState {
    return {
      transcript: this.transcript,
      inbox: this.inbox,
      turn: this.turn,
      model: this.model,
      search_attributes: this.searchAttributes,
      ...(this.unavailableTools.length > 0 ? { unavailable_tools: this.unavailableTools } : {}),
      created_at: this.createdAt,
      todos: this.todos,
      children: this.children,
      plan: this.plan,
    };
  }

  private touch(): void {
    this.updatedAt = this.clock.now().toISOString();
  }
}
