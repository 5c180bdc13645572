import type { ResolvedAnswer } from './answers.js';
import type { ApprovalRequest } from './approval-request.js';
import type { SessionStatus } from './session.js';
import type { Question } from './tools/ask-user.js';
import type { HostToolMcpOrigin } from './host-tools.js';
import type { TodoItem } from './tools/todo.js';
import type { TaskStatus } from './tools/task-board.js';
import type { GoalStatus } from './tools/goals.js';
import type { LoopStatus } from './tools/loops.js';
import type { notificationTypes } from './tools/notify.js';

/** What happened in a session, as people watching it see it. Long texts are shortened (`truncated: true`); the transcript keeps them whole. */
export type SessionEventBody =
  | { type: 'message'; role: 'user' | 'assistant'; content: string; truncated?: true }
  | {
      type: 'tool_call';
      tool_call_id: string;
      name: string;
      arguments: string;
      truncated?: true;
      /** For a tool of an MCP server: the server and the tool's own name there. */
      mcp?: HostToolMcpOrigin;
    }
  | { type: 'tool_result'; tool_call_id: string; name: string; content: string; is_error: boolean; truncated?: true }
  | { type: 'questions_asked'; question_set_id: string; questions: Question[]; approval?: ApprovalRequest }
  | { type: 'questions_answered'; question_set_id: string; answers: ResolvedAnswer[] }
  | { type: 'questions_expired'; question_set_id: string }
  | { type: 'sub_agent_started'; sub_session_id: string; title: string; mode: 'async' | 'sync' }
  | {
      type: 'sub_agent_finished';
      sub_session_id: string;
      title: string;
      status: SessionStatus;
      final_message: string | null;
      truncated?: true;
    }
  | { type: 'todos_updated'; todos: TodoItem[] }
  | { type: 'plan_updated'; title: string | null; revision: number; size: number }
  | {
      type: 'notification';
      notification_type: (typeof notificationTypes)[number];
      title: string;
      message: string;
      source?: string;
      link?: string;
    }
  | { type: 'goal_updated'; goal_id: string; status: GoalStatus; completed_turns: number; max_turns: number }
  | { type: 'loop_updated'; loop_id: string; status: LoopStatus; firings: number; next_fire_at: string | null }
  | { type: 'task_updated'; task_id: string; subject: string; status: TaskStatus | 'deleted' }
  | { type: 'status_changed'; from: SessionStatus; to: SessionStatus }
  | { type: 'notice'; content: string }
  /** A message sent with mode `interrupt` ended the running turn: what it cancelled, what it let finish. */
  | {
      type: 'turn_interrupted';
      turn: number;
      message_id: string;
      model_call_cancelled: boolean;
      /** Tool calls of the round that were cancelled (their results read "interrupted"), by name. */
      tool_calls_cancelled: string[];
      /** Tool calls that cannot be cancelled (no heartbeat timeout): the interrupt waited for them and kept their results. */
      tool_calls_waited_for?: string[];
      sub_agents_stopped: number;
    }
  /** One model call's usage (a webFetch's helper model calls too), with its cost by the worker's price table (null: no price). */
  | {
      type: 'usage';
      source: 'model' | 'webFetch';
      model: string;
      prompt_tokens: number;
      completion_tokens: number;
      cached_tokens?: number;
      reasoning_tokens?: number;
      cost_usd: number | null;
    }
  /** `message_id`: the error is a refused message signal that carried this id. */
  | { type: 'error'; content: string; message_id?: string };

export type SessionEventType = SessionEventBody['type'];

/** One numbered event: `seq` counts from 1 within a session and never repeats, across continue-as-new too. */
export type SessionEvent = SessionEventBody & { seq: number; at: string; session_id: string };

export interface EventRange {
  /** Return events with a larger seq than this (default 0: everything still buffered). */
  after?: number;
  limit?: number;
}

export interface EventPage {
  events: SessionEvent[];
  /** The seq of the newest event the session has emitted (0 before the first). */
  last_seq: number;
  /** Events after `after` that the bounded buffer no longer holds (the transcript still has the conversation). */
  missed: number;
}

/** Events a session buffers in memory, and how many survive continue-as-new. */
export const eventBufferSize = 500;
export const carriedEventCount = 100;
/** Display limits: tool results and arguments are shortened more than messages. */
export const eventTextLimits = { message: 4_000, tool: 1_000 } as const;
