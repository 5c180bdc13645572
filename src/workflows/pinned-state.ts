import type { SessionState } from './session-state.js';

/**
 * The session's todo list, plan, active goals and pending questions as text, for the model's system prompt when its
 * conversation is summarized or fitted (see `CallModelInput.pinned_state`); undefined when the session has none.
 */
export function pinnedState(state: SessionState): string | undefined {
  const parts: string[] = [];
  if (state.todos.length > 0) {
    parts.push(['### Todo list', ...state.todos.map((todo) => `- [${todo.status}] ${todo.content}`)].join('\n'));
  }
  if (state.plan) {
    parts.push(`### Plan${state.plan.title ? `: ${state.plan.title}` : ''} (revision ${state.plan.revision})\n${state.plan.content}`);
  }
  const goals = state.goals.goals.filter((goal) => goal.status === 'active');
  if (goals.length > 0) {
    parts.push(
      [
        '### Goals',
        ...goals.map((goal) => `- ${goal.goal_id}: ${goal.condition} (${goal.completed_turns} of ${goal.max_turns} turns)`),
      ].join('\n'),
    );
  }
  const questions = state.pendingQuestions().flatMap((set) => set.questions.map((question) => `- ${question.question}`));
  if (questions.length > 0) parts.push(['### Questions waiting for the user', ...questions].join('\n'));
  if (parts.length === 0) return undefined;
  return ['## The session now (kept in full; older messages may be summarized or left out)', ...parts].join('\n\n');
}

/** `pinned_state` for a model call's input, when the session has any. */
export function withPinnedState(state: SessionState): { pinned_state?: string } {
  const text = pinnedState(state);
  return text === undefined ? {} : { pinned_state: text };
}
