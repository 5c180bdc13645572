import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { workModes } from '../work-modes.js';

const subagentId = () =>
  z.string().uuid('must be a subagent_id (a UUID) that subagent_spawn returned').describe('The subagent_id subagent_spawn returned');

/** soai's subagent_spawn: Arbor's sub-agent capability (an async child session) under soai's names and rules. */
export const subagentSpawn = defineTool({
  name: 'subagent_spawn',
  waits: true,
  description:
    'Start a background subagent for a task and get its subagent_id at once; you are told when it finishes. ' +
    'tools: leave it out for the default subagent set, [] for text only, or names for only those. A subagent never gets ' +
    'subagent_spawn, subagent_observe, subagent_cancel, ask_user, notify_user, todo_write, plan_write, plan_get or the ' +
    'automation tools; in Plan mode it is in Plan mode too and gets no destructive tools. The spawn is refused when ' +
    'nothing is left.',
  input: () =>
    z.object({
      task: z.string().trim().min(1).max(200_000).describe('What the subagent should do'),
      context: z.string().max(200_000).optional().describe('Background it needs: it starts with a blank conversation'),
      mode: z.enum(workModes).optional().describe('plan or execute (default: yours); a Plan-mode parent spawns only Plan-mode subagents'),
      model: z.string().min(1).max(200).optional().describe("Model override; default: this conversation's model"),
      workspace_path: z.string().max(4_000).optional().describe('Not supported by Arbor (sessions have no workspace): refused'),
      display_name: z.string().trim().min(1).max(100).optional().describe('Shown in the transcript; default: the start of the task'),
      max_iterations: z.number().int().min(1).max(1000).optional().describe('Most model calls the subagent may make'),
      tools: z.array(z.string()).max(200).optional().describe('Omitted: the default set; []: no tools; names: only those'),
    }),
});

export const subagentCancel = defineTool({
  name: 'subagent_cancel',
  waits: true,
  description:
    'Ask a subagent to stop. Cancellation is cooperative and asynchronous: work already in flight may still finish ' +
    'before it takes effect.',
  input: () => z.object({ subagent_id: subagentId() }),
});
