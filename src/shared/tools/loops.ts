import { z } from 'zod';
import { defineTool } from './define-tool.js';

export const loopStatuses = ['active', 'paused', 'completed', 'cancelled', 'exhausted'] as const;
export type LoopStatus = (typeof loopStatuses)[number];
export const defaultLoopTurns = 10;
export const defaultLoopMinIntervalSeconds = 10;
export const defaultLoopMaxAgeSeconds = 7 * 86_400;
export const maxActiveLoops = 20;

const loopId = () => z.string().trim().min(1).max(40).describe('The loop_id createLoop returned');

export const createLoop = defineTool({
  name: 'createLoop',
  description:
    'Create a loop: every interval_seconds the session runs a turn with the prompt (a firing that comes while a turn ' +
    'runs waits for it), until max_turns firings, the loop expires, or you call completeLoop or cancelLoop.',
  input: () =>
    z.object({
      prompt: z.string().trim().min(1, 'prompt is empty').max(10_000).describe('What to do at each firing'),
      interval_seconds: z
        .number()
        .int()
        .min(1)
        .max(365 * 86_400)
        .describe('Seconds between firings'),
      max_turns: z.number().int().min(1).max(100_000).default(defaultLoopTurns).describe(`Most firings (default ${defaultLoopTurns})`),
    }),
});

export const cancelLoop = defineTool({
  name: 'cancelLoop',
  description: 'Cancel a loop: it fires no more.',
  input: () => z.object({ loop_id: loopId() }),
});
export const pauseLoop = defineTool({
  name: 'pauseLoop',
  description: 'Pause an active loop until resumeLoop.',
  input: () => z.object({ loop_id: loopId() }),
});
export const resumeLoop = defineTool({
  name: 'resumeLoop',
  description: 'Resume a paused loop: the next firing comes one interval from now.',
  input: () => z.object({ loop_id: loopId() }),
});
export const completeLoop = defineTool({
  name: 'completeLoop',
  description: 'Mark the loop whose firing started this turn as completed (its work is done), with the reason.',
  input: () => z.object({ reason: z.string().trim().min(1).max(2_000) }),
});
export const listLoops = defineTool({
  name: 'listLoops',
  description: "List this session's loops: state, firings so far, next fire time.",
  input: () => z.object({}),
});

export interface Loop {
  loop_id: string;
  prompt: string;
  interval_seconds: number;
  max_turns: number;
  firings: number;
  status: LoopStatus;
  created_at: string;
  updated_at: string;
  expires_at: string;
  next_fire_at: string | null;
  reason?: string;
}
