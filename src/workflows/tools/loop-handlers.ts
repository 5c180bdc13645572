import type { ToolArgs } from '../../shared/tools/define-tool.js';
import type { createLoop, Loop } from '../../shared/tools/loops.js';
import type { ToolReply } from '../../shared/tool-reply.js';
import type { ToolContext } from './tool-context.js';
import { resultOf } from './reply.js';
import { ToolError } from './tool-error.js';

const view = (loop: Loop) => ({
  loop_id: loop.loop_id,
  status: loop.status,
  prompt: loop.prompt,
  interval_seconds: loop.interval_seconds,
  firings: loop.firings,
  max_turns: loop.max_turns,
  next_fire_at: loop.next_fire_at,
  expires_at: loop.expires_at,
  ...(loop.reason ? { reason: loop.reason } : {}),
});

function result(outcome: ToolReply<Loop>): string {
  return JSON.stringify(view(resultOf(outcome)));
}

export const startLoop = (args: ToolArgs<typeof createLoop>, { state }: ToolContext) =>
  result(state.loops.create(args, state.settings.loopLimits));
export const pauseLoopById = (loopId: string, { state }: ToolContext) => result(state.loops.pause(loopId));
export const resumeLoopById = (loopId: string, { state }: ToolContext) => result(state.loops.resume(loopId));
export const cancelLoopById = (loopId: string, { state }: ToolContext) => result(state.loops.end(loopId, 'cancelled'));

export function completeRunningLoop(reason: string, { state }: ToolContext): string {
  if (!state.runningLoopId)
    throw new ToolError('This turn was not started by a loop firing; use cancelLoop with a loop_id to stop a loop.');
  return result(state.loops.end(state.runningLoopId, 'completed', reason));
}

export const listAllLoops = ({ state }: ToolContext) => JSON.stringify({ loops: state.loops.loops.map(view) });
