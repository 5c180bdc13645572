import { proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type { ToolArgs } from '../../shared/tools/define-tool.js';
import type { subagentSpawn } from '../../shared/tools/soai-sub-agents.js';
import { profileTools, toolProfiles } from '../../shared/tools/profiles/index.js';
import { defaultTitle } from '../../shared/titles.js';
import { hasChange } from '../session-changes.js';
import type { ToolContext } from './tool-context.js';
import { resultOf } from './reply.js';
import { ToolError } from './tool-error.js';
import { isDestructive } from './destructive-tools.js';
import { stopSubAgent } from './sub-agent-handlers.js';

const models = proxyLocalActivities<Activities>({ startToCloseTimeout: '15 seconds', retry: { maximumAttempts: 2 } });

/**
 * soai's subagent_spawn on Arbor's sub-agent capability: an async child session of the same profile. The tools follow
 * soai's rules: omitted, the parent's less the fixed removals; [], none; names, only those less the fixed removals.
 */
export async function spawnSoaiSubagent(args: ToolArgs<typeof subagentSpawn>, context: ToolContext): Promise<string> {
  const { state } = context;
  if (args.workspace_path !== undefined)
    throw new ToolError(
      'workspace_path is not supported: Arbor sessions have no workspace. Leave it out and say in the task where to work.',
    );
  if (state.workMode === 'plan' && args.mode === 'execute')
    throw new ToolError('This conversation is in Plan mode, so it may spawn only Plan-mode subagents: leave mode out or pass "plan".');
  const planMode = state.workMode === 'plan' || args.mode === 'plan';
  const hostTools = state.settings.hostTools?.tools.map((tool) => tool.name) ?? [];
  const known = [...profileTools(state.profile), ...hostTools];
  const unknown = (args.tools ?? []).filter((name) => !known.includes(name));
  if (unknown.length > 0)
    throw new ToolError(`Unknown tool name(s) for the subagent: ${unknown.join(', ')}. Known tools: ${known.join(', ')}.`);

  const removals = toolProfiles[state.profile].subAgentRemovals.names;
  const requested = args.tools ?? [...context.toolNames];
  const tools = requested.filter((name) => !removals.includes(name) && !(planMode && isDestructive(name, state.settings)));
  // [] asks for text only; anything else that filters down to nothing is refused, as soai does.
  if (tools.length === 0 && !(args.tools !== undefined && args.tools.length === 0)) {
    throw new ToolError(
      `No tools are left for the subagent once the fixed removals${planMode ? ' and the destructive tools (Plan mode)' : ''} ` +
        `are taken from ${requested.length > 0 ? requested.join(', ') : 'none'}: name other tools, or pass [] for text only.`,
    );
  }
  if (args.model !== undefined && args.model !== state.settings.model && hasChange('sub-agent-model-checked')) {
    resultOf(await models.checkModel(args.model));
  }
  resultOf(context.subAgents.checkLimits());
  const displayName = args.display_name ?? defaultTitle(args.task);
  const { id } = await context.subAgents.spawn({
    title: displayName,
    instruction: args.context?.trim() ? `${args.task}\n\nContext:\n${args.context}` : args.task,
    mode: 'async',
    tools,
    max_turns: args.max_iterations,
    model: args.model ?? state.settings.model,
    ...(planMode ? { work_mode: 'plan' as const } : {}),
  });
  return JSON.stringify({
    subagent_id: id,
    display_name: displayName,
    status: 'running',
    mode: planMode ? 'plan' : 'execute',
    tools,
    note: 'It runs in the background; you are told when it finishes.',
  });
}

/** soai's subagent_cancel on Arbor's stop capability: the subagent and its own sub-agents are cancelled, leaves first. */
export async function cancelSoaiSubagent(subagentId: string, context: ToolContext): Promise<string> {
  const stopped = JSON.parse(await stopSubAgent(subagentId, context)) as { total_stopped: number };
  return JSON.stringify({
    subagent_id: subagentId,
    status: stopped.total_stopped > 0 ? 'cancelled' : 'already_finished',
    note: 'Cancellation is cooperative: work already in flight may have finished before it took effect.',
  });
}
