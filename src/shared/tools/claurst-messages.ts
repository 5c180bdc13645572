import { z } from 'zod';
import { defineTool } from './define-tool.js';

/** The name the root session of a tree answers to in SendMessage (it has no Agent call that named it). */
export const leadAgentName = 'team-lead';

const structuredMessage = () =>
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('shutdown_request'), reason: z.string().max(10_000).optional() }),
    z.object({ type: z.literal('shutdown_response'), status: z.enum(['ok', 'error']), message: z.string().max(10_000).optional() }),
    z.object({
      type: z.literal('plan_approval_response'),
      approved: z.boolean(),
      comment: z.string().max(10_000).optional(),
      requestId: z.string().min(1).max(200),
    }),
  ]);
export type StructuredAgentMessage = z.infer<ReturnType<typeof structuredMessage>>;

export const sendMessage = defineTool({
  name: 'SendMessage',
  description:
    'Send a message to a named agent of this session tree (the name given in Agent; its id works too; the root session ' +
    `is "${leadAgentName}"), or "*" to broadcast to every running agent of the tree but you. The message is text or a ` +
    'structured object: {type: "shutdown_request", reason?} asks the recipient to finish and stop; it answers with ' +
    '{type: "shutdown_response", status: "ok" | "error", message?}, and "ok" ends the responder\'s turn (a sub-agent ' +
    'then finishes). "uds:" and "bridge:" addresses are not supported.',
  input: () =>
    z.object({
      to: z.string().trim().min(1).max(200).describe(`Recipient: an agent name, "${leadAgentName}", or "*" for all agents`),
      message: z
        .union([z.string().trim().min(1).max(200_000), structuredMessage()])
        .describe('Message text, or a structured message object'),
      summary: z.string().max(200).optional().describe('Short summary shown in the activity feed'),
    }),
});
