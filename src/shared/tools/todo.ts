import { z } from 'zod';
import { defineTool } from './define-tool.js';

export const todoStatuses = ['pending', 'in_progress', 'completed'] as const;

const todoItem = () =>
  z.object({
    content: z.string().trim().min(1).max(500).describe('Task description, in the imperative ("Write the tests")'),
    status: z.enum(todoStatuses).describe('pending, in_progress or completed'),
    active_form: z
      .string()
      .max(200)
      .optional()
      .describe('Short text shown in the status bar while the item is in progress ("Writing the tests")'),
  });
export type TodoItem = z.infer<ReturnType<typeof todoItem>>;

const todoListInput = () =>
  z.object({
    todos: z.array(todoItem()).max(100).default([]).describe('The complete todo list'),
  });

export const todoWrite = defineTool({
  name: 'todoWrite',
  description:
    'Manage your task list. Each call passes the complete list, which replaces the previous one. ' +
    'Keep tasks at a verifiable granularity, mark one item in_progress at a time, mark finished ones completed, ' +
    'and remove unneeded items instead of marking them cancelled.',
  input: todoListInput,
});

/** The soai profile's todo list: the same list as todoWrite, under soai's name. */
export const todoWriteSoai = defineTool({
  name: 'todo_write',
  description:
    'Write the todo checklist: the steps in front of you right now. Every call replaces the whole list, so restate every ' +
    'item with its status (pending, in_progress, completed); only one item may be in_progress at a time. For reasoning ' +
    'you do not want to rebuild after the conversation is compacted, use plan_write instead.',
  input: todoListInput,
});
