import type { z } from 'zod';

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

/**
 * The schema is built on first use and kept in a private field, read through a getter of the prototype: a module the
 * worker shares among workflows is deep-frozen (src/workflows/shared-modules.ts), and the freeze reads every own
 * property, so an own getter would build the schema then and freeze it, which zod's schemas refuse (they define their
 * methods on first use). A private field stays writable in a frozen object.
 */
class BuiltInTool<Name extends string, Input extends z.ZodType> implements ToolDefinition<Name, Input> {
  readonly #build: () => Input;
  #input: Input | undefined;

  constructor(
    readonly name: Name,
    readonly description: string,
    build: () => Input,
    readonly waits: boolean,
    readonly destructive: boolean,
  ) {
    this.#build = build;
  }

  get input(): Input {
    return (this.#input ??= this.#build());
  }
}

export function defineTool<const Name extends string, Input extends z.ZodType>(definition: {
  name: Name;
  description: string;
  input: () => Input;
  waits?: boolean;
  destructive?: boolean;
}): ToolDefinition<Name, Input> {
  return new BuiltInTool(
    definition.name,
    definition.description,
    definition.input,
    definition.waits ?? false,
    definition.destructive ?? false,
  );
}

export type ToolArgs<T extends ToolDefinition> = z.infer<T['input']>;
