import { z } from 'zod';
import { lazy } from './lazy.js';

/**
 * A session's work mode. `plan`: the session researches and plans, and tools marked destructive (built-in ones that
 * change the world outside the session tree, host tools defined `destructive`) do not run; its sub-agents are in Plan
 * mode too. `execute` (the default): every tool the session has runs. The `executePlan` update switches a session from
 * Plan to Execute mode and tells the agent to implement its plan.
 */
export const workModes = ['plan', 'execute'] as const;
export type WorkMode = (typeof workModes)[number];
export const defaultWorkMode: WorkMode = 'execute';

export const workModeSchema = lazy(() => z.enum(workModes));

/** What a client sends with `executePlan`: all optional. */
export const executePlanRequestSchema = lazy(() =>
  z.strictObject({
    id: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('The id of the message that tells the agent to implement the plan (its dedupe key); omitted: one is made'),
    message: z
      .string()
      .trim()
      .min(1, 'message is empty: leave it out, or say what to add')
      .max(20_000)
      .optional()
      .describe("The user's words added to that message (how to carry the plan out, what to leave aside)"),
  }),
);
export type ExecutePlanRequest = z.infer<ReturnType<typeof executePlanRequestSchema>>;

/** What `executePlan` answers: the session is in Execute mode, and the message that starts the implementation is queued. */
export interface ExecutePlanReceipt {
  work_mode: 'execute';
  message_id: string;
}

/** The message `executePlan` queues for the agent. */
export function executePlanMessage(added?: string, readBack = 'planGet reads it back'): string {
  return (
    '[Execute plan] The user approved the plan and switched this session to Execute mode: every tool is available now, ' +
    `destructive ones included. Implement the plan (${readBack}), step by step.` +
    (added ? `\nThe user added: ${added}` : '')
  );
}
