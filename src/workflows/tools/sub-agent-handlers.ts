import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type { ToolArgs } from '../../shared/tools/define-tool.js';
import { profileTools } from '../../shared/tools/profiles/index.js';
import type { subAgent } from '../../shared/tools/sub-agents.js';
import { servedTools } from '../deployment-settings.js';
import type { SpawnRequest } from '../sub-agents.js';
import { hasChange } from '../session-changes.js';
import { defaultSubAgentTools, withheldFromSubAgentsByDefault } from '../../shared/tools/sub-agent-tools.js';
import type { ToolContext } from './tool-context.js';
import { replyText, resultOf } from './reply.js';
import { ToolError } from './tool-error.js';
import { isDestructive } from './destructive-tools.js';

const tree = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 5 } });
const models = proxyLocalActivities<Activities>({ startToCloseTimeout: '15 seconds', retry: { maximumAttempts: 2 } });
const stopping = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 3 },
});

/**
 * Not async for an async sub-agent (issue 32): its reply follows the start through one `then`, where the async
 * function's promise and its await were two promises the SDK captures a stack trace for; the reply is ready at the same
 * point (one step after the start), and a refusal rejects at once, as the async function's throw did.
 */
export function spawnSubAgent(args: ToolArgs<typeof subAgent>, context: ToolContext): Promise<string> {
  let launched: ReturnType<typeof launchSubAgent>;
  try {
    launched = launchSubAgent({ ...args, tools: args.tools, inherited: () => inheritedTools(context) }, context);
  } catch (error) {
    return Promise.reject(error);
  }
  if (args.mode === 'async')
    return launched.then(({ id }) =>
      JSON.stringify({ sub_session_id: id, status: 'running', note: 'You will be notified when it finishes.' }),
    );
  return waitForSubAgent(launched);
}

async function waitForSubAgent(launched: ReturnType<typeof launchSubAgent>): Promise<string> {
  const { id, finished } = await launched;
  const result = await finished;
  if (result === 'stopped')
    return JSON.stringify({ sub_session_id: id, status: 'stopped', content: 'The sub-agent was stopped before it finished.' });
  return JSON.stringify({
    sub_session_id: id,
    status: result.status,
    content: result.final_message ?? '',
    ...(result.error ? { error: result.error } : {}),
  });
}

/**
 * A sub-agent to start, as any dialect's spawn tool asks for it: `tools` as named (absent: `inherited()`, asked only at
 * the start, where subAgent always asked it), `model` absent: the session's.
 */
export type LaunchRequest = Omit<SpawnRequest, 'model'> & { model?: string | undefined; inherited: () => string[] | undefined };

/**
 * The one sub-agent capability behind every dialect's spawn tool: checks the tools named, the model and the limits,
 * then starts the child; resolves once it has started, with its id and the promise of its end.
 */
export function launchSubAgent(request: LaunchRequest, context: ToolContext): ReturnType<ToolContext['subAgents']['spawn']> {
  const args = request;
  // A sub-agent may be given the built-in tools and the host tools of this session's catalogue, which it inherits.
  const known = [...profileTools(context.state.profile), ...(context.state.settings.hostTools?.tools.map((tool) => tool.name) ?? [])];
  const unknown = (args.tools ?? []).filter((name) => !known.includes(name));
  if (unknown.length > 0)
    throw new ToolError(`Unknown tool name(s) for the sub-agent: ${unknown.join(', ')}. Known tools: ${known.join(', ')}.`);
  if (context.state.workMode === 'plan' && args.tools && args.tools.length > 0) {
    // In Plan mode the sub-agent is in Plan mode too: refused when every tool named is one it could not run.
    const runnable = args.tools.filter((name) => !isDestructive(name, context.state.settings));
    if (runnable.length === 0)
      throw new ToolError(
        `This session is in Plan mode, so its sub-agents are too, and every tool named (${args.tools.join(', ')}) is marked ` +
          'destructive: the sub-agent would have none it may run. Name tools that are not destructive, or [] for text only.',
      );
  }
  const spawn = () => {
    resultOf(context.subAgents.checkLimits());
    return context.subAgents.spawn({
      title: args.title,
      instruction: args.instruction,
      mode: args.mode,
      tools: args.tools ?? args.inherited(),
      system_prompt: args.system_prompt,
      max_turns: args.max_turns,
      model: args.model ?? context.state.settings.model,
      ...(args.name !== undefined ? { name: args.name } : {}),
    });
  };
  // A model the endpoint does not serve is refused here, with the models the worker knows, before a sub-agent waits on it.
  // Checked before the limits, so nothing awaits between them and the start: calls of one round are counted together.
  if (args.model !== undefined && args.model !== context.state.settings.model && hasChange('sub-agent-model-checked'))
    return models.checkModel(args.model).then((checked) => (resultOf(checked), spawn()));
  // Not async (callers turn a throw above into a rejection, as an async function's was): one promise less per
  // sub-agent, which the SDK would capture a stack trace for.
  return spawn();
}

/**
 * The tools a sub-agent gets when the model names none: its parent's, less the automation tools (see
 * `withheldFromSubAgentsByDefault`; sub-agents of sessions from before that rule, which had them, keep the old one).
 * Left out of the child's input when they are all the tools this deployment serves, which the child chooses by itself.
 */
export function inheritedTools(context: ToolContext): string[] | undefined {
  const withholds = context.toolNames.some((name) => withheldFromSubAgentsByDefault.includes(name));
  if (withholds && hasChange('sub-agents-not-given-automation-tools-by-default')) return defaultSubAgentTools(context.toolNames);
  const served = servedTools(context.state.settings, context.state.profile);
  const same = served.length === context.toolNames.length && served.every((name) => context.toolNames.includes(name));
  return same ? undefined : [...context.toolNames];
}

export async function listSubAgents(context: ToolContext): Promise<string> {
  return JSON.stringify(await tree.listSubAgents(context.state.identity.session_id));
}

export async function getSubAgentMessage(targetId: string, context: ToolContext): Promise<string> {
  return replyText(await tree.getSubAgentMessage(context.state.identity.session_id, targetId));
}

export async function sendMessageToSubAgent(targetId: string, message: string, context: ToolContext): Promise<string> {
  return replyText(
    await tree.sendMessageToSubAgent(context.state.identity.session_id, targetId, message, `from-parent:${context.toolCallId}`),
  );
}

export async function stopSubAgent(targetId: string, context: ToolContext): Promise<string> {
  return replyText(await stopping.stopSessionTree(context.state.identity.session_id, targetId));
}
