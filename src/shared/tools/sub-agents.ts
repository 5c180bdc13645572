import { z } from 'zod';
import { defineTool } from './define-tool.js';

const sessionId = () => z.string().uuid('must be a session id (a UUID) from listSubAgent');

export const subAgentModes = ['async', 'sync'] as const;
export type SubAgentMode = (typeof subAgentModes)[number];

export const subAgent = defineTool({
  name: 'subAgent',
  waits: true,
  description:
    'Create a sub-agent session for a complex, multi-step task. It starts with a blank context, so the instruction must ' +
    'carry all the background it needs. mode "async" (default) returns the sub_session_id at once and you are notified ' +
    'when it finishes; "sync" waits and returns its final message.',
  input: () =>
    z.object({
      title: z.string().trim().min(1).max(100).describe('Short task description, 3-5 words'),
      instruction: z.string().trim().min(1).max(200_000).describe('Complete instructions and context for the sub-agent'),
      mode: z.enum(subAgentModes).default('async').describe('"async" (default) or "sync"'),
      tools: z
        .array(z.string())
        .optional()
        .describe(
          'Tool names for the sub-agent; omitted: your own tools except the automation tools (name those to give them); []: text only',
        ),
      system_prompt: z.string().max(200_000).optional().describe('Custom system prompt for the sub-agent'),
      max_turns: z.number().int().min(1).max(1000).optional().describe('Most model calls the sub-agent may make in one turn'),
      model: z.string().min(1).max(200).optional().describe("Model for the sub-agent; default: this session's model"),
    }),
});

export const listSubAgent = defineTool({
  name: 'listSubAgent',
  description:
    'List the active sub-agent sessions of the whole session tree (every depth, your siblings too; not yourself), with their status.',
  input: () => z.object({}),
});

export const getSubAgentMessage = defineTool({
  name: 'getSubAgentMessage',
  description: 'Get the latest message of a sub-agent anywhere in this session tree (not yourself), to check its output or progress.',
  input: () => z.object({ sub_session_id: sessionId() }),
});

export const sendMessageToSubAgent = defineTool({
  name: 'sendMessageToSubAgent',
  description: 'Send an additional message to a running async sub-agent: more instructions, context, or answers.',
  input: () => z.object({ sub_session_id: sessionId(), message: z.string().trim().min(1).max(200_000) }),
});

export const stopSubAgent = defineTool({
  name: 'stopSubAgent',
  waits: true,
  description: 'Stop a sub-agent and all its descendants, leaves first, then parents.',
  input: () => z.object({ sub_session_id: sessionId() }),
});
