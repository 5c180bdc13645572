import type { ToolReply } from '../shared/tool-reply.js';
import { RecentReplies } from './recent-replies.js';
import {
  maxTasks,
  type BoardTask,
  type TaskBoardRequest,
  type TaskCreateArgs,
  type TaskStatus,
  type TaskUpdateArgs,
} from '../shared/tools/task-board.js';

export interface CarriedBoard {
  tasks: BoardTask[];
  next_id: number;
  /** Replies to the latest writes from sub-agents, by update id (absent in runs from before it was carried). */
  recent_updates?: [string, ToolReply<unknown>][];
}

/** What changed on the board, for the event stream. */
export interface BoardChange {
  task_id: string;
  subject: string;
  status: TaskStatus | 'deleted';
}

/**
 * A session tree's task board, owned by the root session's workflow: every operation, from the root or from any
 * sub-agent, is applied here one at a time, so concurrent updates never overwrite each other. Pure: no Temporal calls.
 */
export class TaskBoard {
  tasks: BoardTask[];
  /** Writes that came as updates (from sub-agents), so one retried after the root continued as new applies once. */
  readonly updates: RecentReplies<ToolReply<unknown>>;
  private nextId: number;

  constructor(
    private readonly now: () => Date,
    carried?: CarriedBoard,
    private readonly onChange: (change: BoardChange) => void = () => {},
  ) {
    this.tasks = carried?.tasks ?? [];
    this.nextId = carried?.next_id ?? 1;
    this.updates = new RecentReplies(carried?.recent_updates);
  }

  apply(request: TaskBoardRequest): ToolReply<unknown> {
    switch (request.op) {
      case 'create':
        return this.create(request.args, request.session_id);
      case 'get':
        return { ok: true, result: { task: this.describe(request.args.task_id) } };
      case 'update':
        return { ok: true, result: this.update(request.args) };
      case 'list':
        return { ok: true, result: { tasks: this.list() } };
    }
  }

  list() {
    return this.tasks.map((task) => ({
      id: task.id,
      subject: task.subject,
      status: task.status,
      owner: task.owner,
      blockedBy: task.blockedBy.filter((id) => this.find(id)?.status !== 'completed'),
    }));
  }

  carry(): CarriedBoard {
    return { tasks: this.tasks, next_id: this.nextId, ...(this.updates.size > 0 ? { recent_updates: this.updates.carry() } : {}) };
  }

  private create(args: TaskCreateArgs, sessionId: string): ToolReply<unknown> {
    if (this.tasks.length >= maxTasks)
      return { ok: false, error: `The board already holds ${maxTasks} tasks, the most it may; delete finished ones first.` };
    const now = this.now().toISOString();
    const task: BoardTask = {
      id: String(this.nextId++),
      subject: args.subject,
      description: args.description,
      status: 'pending',
      owner: null,
      metadata: withoutNulls(args.metadata ?? {}),
      blocks: [],
      blockedBy: [],
      created_by: sessionId,
      created_at: now,
      updated_at: now,
    };
    this.tasks.push(task);
    this.onChange({ task_id: task.id, subject: task.subject, status: task.status });
    return { ok: true, result: { task: { id: task.id, subject: task.subject } } };
  }

  private describe(id: string) {
    const task = this.find(id);
    if (!task) return null;
    const { id: taskId, subject, description, status, owner, metadata, blocks, blockedBy } = task;
    return { id: taskId, subject, description, status, owner, metadata, blocks, blockedBy };
  }

  private update(args: TaskUpdateArgs) {
    const refuse = (error: string) => ({ success: false, task_id: args.task_id, updated_fields: [] as string[], error });
    const task = this.find(args.task_id);
    if (!task) return refuse(`Task ${args.task_id} not found.`);

    if (args.status === 'deleted') {
      this.tasks = this.tasks.filter((other) => other !== task);
      for (const other of this.tasks) {
        other.blocks = other.blocks.filter((id) => id !== task.id);
        other.blockedBy = other.blockedBy.filter((id) => id !== task.id);
      }
      this.onChange({ task_id: task.id, subject: task.subject, status: 'deleted' });
      return { success: true, task_id: task.id, updated_fields: ['status'], status_change: { from: task.status, to: 'deleted' } };
    }

    const edges: [string, string][] = [
      ...(args.addBlocks ?? []).map((id): [string, string] => [task.id, id]),
      ...(args.addBlockedBy ?? []).map((id): [string, string] => [id, task.id]),
    ];
    for (const [from, to] of edges) {
      const other = from === task.id ? to : from;
      if (other === task.id) return refuse(`Task ${task.id} cannot block itself.`);
      if (!this.find(other)) return refuse(`Task ${other} not found; nothing was changed.`);
    }
    const cycle = this.cycleWith(edges);
    if (cycle) return refuse(`These dependencies would make a cycle (${cycle.join(' → ')}); nothing was changed.`);

    const updated: string[] = [];
    const set = <K extends 'subject' | 'description'>(key: K, value: BoardTask[K] | undefined) => {
      if (value !== undefined && value !== task[key]) {
        task[key] = value;
        updated.push(key);
      }
    };
    set('subject', args.subject);
    set('description', args.description);
    if (args.owner !== undefined && (args.owner || null) !== task.owner) {
      task.owner = args.owner || null;
      updated.push('owner');
    }
    if (args.metadata !== undefined) {
      const merged = withoutNulls({ ...task.metadata, ...args.metadata });
      if (JSON.stringify(merged) !== JSON.stringify(task.metadata)) {
        task.metadata = merged;
        updated.push('metadata');
      }
    }
    let addedBlocks = false;
    let addedBlockedBy = false;
    for (const [from, to] of edges) {
      const blocker = this.find(from)!;
      const blocked = this.find(to)!;
      if (blocker.blocks.includes(to)) continue;
      blocker.blocks.push(to);
      blocked.blockedBy.push(from);
      if (from === task.id) addedBlocks = true;
      else addedBlockedBy = true;
    }
    if (addedBlocks) updated.push('blocks');
    if (addedBlockedBy) updated.push('blockedBy');
    let statusChange: { from: TaskStatus; to: TaskStatus } | undefined;
    if (args.status !== undefined && args.status !== task.status) {
      statusChange = { from: task.status, to: args.status };
      task.status = args.status;
      updated.push('status');
    }
    if (updated.length > 0) {
      task.updated_at = this.now().toISOString();
      this.onChange({ task_id: task.id, subject: task.subject, status: task.status });
    }
    return { success: true, task_id: task.id, updated_fields: updated, ...(statusChange ? { status_change: statusChange } : {}) };
  }

  /** A dependency cycle the new edges (blocker → blocked) would close, as the ids along it, or undefined. */
  private cycleWith(edges: [string, string][]): string[] | undefined {
    const next = new Map<string, string[]>(this.tasks.map((task) => [task.id, [...task.blocks]]));
    for (const [from, to] of edges) next.get(from)!.push(to);
    for (const [from, to] of edges) {
      const path = this.pathBetween(next, to, from);
      if (path) return [from, ...path];
    }
    return undefined;
  }

  private pathBetween(next: Map<string, string[]>, start: string, goal: string): string[] | undefined {
    const previous = new Map<string, string | null>([[start, null]]);
    const queue = [start];
    while (queue.length > 0) {
      const current = queue.shift()!;
      if (current === goal) {
        const path: string[] = [];
        for (let at: string | null = current; at !== null; at = previous.get(at) ?? null) path.unshift(at);
        return path;
      }
      for (const following of next.get(current) ?? []) {
        if (!previous.has(following)) {
          previous.set(following, current);
          queue.push(following);
        }
      }
    }
    return undefined;
  }

  private find(id: string): BoardTask | undefined {
    return this.tasks.find((task) => task.id === id);
  }
}

function withoutNulls(metadata: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(metadata).filter(([, value]) => value !== null && value !== undefined));
}
