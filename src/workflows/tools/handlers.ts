import type { BuiltinTool, ToolName } from '../../shared/tools/registry.js';
import type { ToolArgs } from '../../shared/tools/define-tool.js';
import type { ToolContext } from './tool-context.js';
import { writeTodos } from './todo-handler.js';

type ToolHandler<T extends BuiltinTool> = (args: ToolArgs<T>, context: ToolContext) => string | Promise<string>;

/** One handler per built-in tool; a tool in the registry without an entry here is a compile error. */
export type ToolHandlers = { [Name in ToolName]: ToolHandler<Extract<BuiltinTool, { name: Name }>> };

export const toolHandlers: ToolHandlers = {
  todoWrite: (args, context) => writeTodos(args.todos, context),
};
