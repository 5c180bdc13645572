import type { z } from 'zod';

/** A built-in tool declared once: its name and description for the model, and the zod schema of its arguments. */
export interface ToolDefinition<Name extends string = string, Input extends z.ZodType = z.ZodType> {
  name: Name;
  description: string;
  input: Input;
}

export function defineTool<const Name extends string, Input extends z.ZodType>(
  definition: ToolDefinition<Name, Input>,
): ToolDefinition<Name, Input> {
  return definition;
}

export type ToolArgs<T extends ToolDefinition> = z.infer<T['input']>;
