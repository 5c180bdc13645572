import { z } from 'zod';
import { defineTool } from './define-tool.js';

/** The model aliases claurst's `Agent` takes; the worker maps each to a model it serves (ARBOR_MODEL_ALIASES). */
export const claurstModelAliases = ['sonnet', 'opus', 'haiku'] as const;
export type ClaurstModelAlias = (typeof claurstModelAliases)[number];

const agentInput = () =>
  z.object({
    description: z.string().trim().min(1).max(100).describe('3-5 word label for the task, shown in the UI'),
    prompt: z.string().trim().min(1).max(200_000).describe('Full task description given to the sub-agent as its initial user message'),
    tools: z
      .array(z.string())
      .optional()
      .describe("Subset of tool names for the sub-agent; omitted: the parent's tool set minus Agent/Task"),
    system_prompt: z.string().max(200_000).optional().describe('Custom system prompt for the sub-agent; overrides the default'),
    max_turns: z.number().int().min(1).max(1000).optional().describe('Maximum number of turns (model calls) for the sub-agent'),
    model: z.enum(claurstModelAliases).optional().describe('Model alias: "sonnet", "opus" or "haiku"; default: the session model'),
    run_in_background: z
      .boolean()
      .default(false)
      .describe('Launch as a background task and return its id at once (read it with TaskOutput, stop it with TaskStop)'),
    name: z
      .string()
      // A name SendMessage can address: not `*` and not a `uds:` or `bridge:` address. The expression is made here, not
      // at module level: the worker freezes this module (shared-modules.ts), and zod resets the lastIndex of what it tests.
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'a name is 1-64 letters, digits, "_", "." or "-", starting with a letter or digit')
      .optional()
      .describe('Name of the agent, for messaging it with SendMessage'),
    team_name: z.string().optional().describe('Not supported by Arbor: a call that gives it is refused'),
    isolation: z.enum(['worktree', 'remote']).optional().describe('Not supported by Arbor: a call that gives it is refused'),
  });

const agentDescription =
  'Spawn a sub-agent that runs its own agentic loop to complete an independent task (its own conversation, tools and ' +
  'model budget). It starts with a blank context, so the prompt must carry everything it needs. Synchronous by default: ' +
  'returns {status: "completed", content: <final message>}; with run_in_background: true returns ' +
  '{status: "async_launched", agent_id} at once. Use TaskCreate instead to only track work on the task board.';

export const agent = defineTool({ name: 'Agent', waits: true, description: agentDescription, input: agentInput });

/** claurst's alias of `Agent`: the same tool under its older name. */
export const task = defineTool({ name: 'Task', waits: true, description: `${agentDescription} (Alias of Agent.)`, input: agentInput });
