import type { z } from 'zod';
import { lazy } from '../lazy.js';

/** A built-in tool declared once: its name and description for the model, and the zod schema of its arguments. */
export interface ToolDefinition<Name extends string = string, Input extends z.ZodType = z.ZodType> {
  name: Name;
  description: string;
  /** Built on first use (see lazy.ts). */
  readonly input: Input;
  /** A call may wait long on something outside the session (a timer, a sub-agent, a person, another run). */
  waits: boolean;
  /**
   * A call changes the world outside the session tree (an owner's schedules, data other sessions rely on): a session
   * in Plan mode does not run it. README "Plan mode" lists each built-in tool's choice.
   */
  destructive: boolean;
}

export function defineTool<const Name extends string, Input extends z.ZodType>(definition: {
  name: Name;
  description: string;
  input: () => Input;
  waits?: boolean;
  destructive?: boolean;
}): ToolDefinition<Name, Input> {
  const input = lazy(definition.input);
  return {
    name: definition.name,
    description: definition.description,
    waits: definition.waits ?? false,
    destructive: definition.destructive ?? false,
    get input() {
      return input();
    },
  };
}

export type ToolArgs<T extends ToolDefinition> = z.infer<T['input']>;
