import { z } from 'zod';
import { lazy } from './lazy.js';
import { sessionInputSchema } from './session.js';

/**
 * A session workflow's whole input as it arrives from any client: the options every client may send
 * (`sessionInputSchema`, the one the SDK checks) and nothing else, plus what Arbor itself hands a run: `carried`
 * (the state of the run before, at continue-as-new) and `environment` (a sub-agent's, from its parent). Those two are
 * only checked to be objects: their shape belongs to the workflow versions that wrote them.
 */
export const sessionWorkflowInputSchema = lazy(() =>
  z.strictObject({
    ...sessionInputSchema().shape,
    carried: z.looseObject({}).optional().describe('Set by Arbor at continue-as-new: the state of the run before. Never send it.'),
    environment: z.looseObject({}).optional().describe("Set by Arbor for a sub-agent: its parent's environment. Never send it."),
    forked_from: z
      .strictObject({ session_id: z.string().min(1), position: z.number().int().min(0) })
      .optional()
      .describe('Set by Arbor in a fork (session.fork): the source session and transcript position. Never send it.'),
  }),
);

const sessionInputExample = '{"instruction": "Plan a picnic for four people", "title": "Picnic"}';

/**
 * What is wrong with a session workflow's input, or null when nothing is: the workflow refuses the same options the
 * SDK does, and keys no option has. It only checks: a valid input is used exactly as it came.
 */
export function sessionInputProblem(input: unknown): string | null {
  const parsed = sessionWorkflowInputSchema().safeParse(input);
  let problem: string | null = null;
  if (!parsed.success) problem = z.prettifyError(parsed.error);
  else if (!parsed.data.carried && parsed.data.instruction !== undefined && !parsed.data.instruction.trim())
    problem = '✖ instruction is blank: say what the agent should do, or leave the key out to start a session that waits for a message';
  if (problem === null) return null;
  const keys = Object.keys(sessionInputSchema().shape).join(', ');
  return (
    `Invalid session input:\n${problem}\n` +
    `A session's input is one JSON object such as ${sessionInputExample}, with only these keys, all optional: ${keys} ` +
    '(see docs/protocol.md and schemas/session-input.json).'
  );
}

/** The failure type of a session (or memory store) workflow that ended at once because of its input. */
export const invalidSessionInputType = 'InvalidSessionInput';
export const invalidMemoryStoreInputType = 'InvalidMemoryStoreInput';
