import type { TodoItem } from '../../shared/tools/todo.js';
import { ToolError } from './tool-error.js';
import type { ToolContext } from './tool-context.js';

export function writeTodos(todos: TodoItem[], { state }: ToolContext): string {
  const inProgress = todos.filter((todo) => todo.status === 'in_progress');
  if (inProgress.length > 1) {
    throw new ToolError(
      `At most one todo may be in_progress, got ${inProgress.length}: ` +
        `${inProgress.map((todo) => JSON.stringify(todo.content)).join(', ')}. The list was not changed.`,
    );
  }
  state.setTodos(todos);
  const count = (status: TodoItem['status']) => todos.filter((todo) => todo.status === status).length;
  return (
    `Todo list updated: ${todos.length} item(s), ${count('completed')} completed, ` +
    `${count('in_progress')} in progress, ${count('pending')} pending.`
  );
}
