import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type { ToolArgs } from '../../shared/tools/define-tool.js';
import type { agent } from '../../shared/tools/claurst-agents.js';
import { leadAgentName } from '../../shared/tools/claurst-messages.js';
import type { taskOutput } from '../../shared/tools/claurst-tasks.js';
import { defaultSubAgentTools, withheldFromSubAgentsByDefault } from '../../shared/tools/sub-agent-tools.js';
import type { ChildSession, SessionStatus } from '../../shared/session.js';
import type { ToolContext } from './tool-context.js';
import { launchSubAgent } from './sub-agent-handlers.js';
import { finalMessageOf, hasEnded, ownChild, waitForEnd } from './child-waits.js';
import { resultOf } from './reply.js';
import { ToolError } from './tool-error.js';

const aliases = proxyLocalActivities<Activities>({ startToCloseTimeout: '15 seconds', retry: { maximumAttempts: 2 } });
const stopping = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 3 },
});

/** The spawn tools themselves: a claurst sub-agent that names no tools gets its parent's less these (no recursion). */
const agentToolNames = ['Agent', 'Task'];

/** claurst `Agent` (and `Task`): the sub-agent capability, with claurst's parameters and results. */
export async function runAgent(args: ToolArgs<typeof agent>, context: ToolContext): Promise<string> {
  if (args.team_name !== undefined)
    throw new ToolError('team_name is not supported: Arbor has no teams (swarms). Leave it out; name the agent to message it.');
  if (args.isolation !== undefined)
    throw new ToolError(`isolation "${args.isolation}" is not supported: Arbor sub-agents run on the same worker. Leave it out.`);
  if (args.name === leadAgentName)
    throw new ToolError(`"${leadAgentName}" is the root session's name in SendMessage; give the agent another name.`);
  if (args.name !== undefined && context.state.runningChildren().some((child) => child.name === args.name))
    throw new ToolError(`A running sub-agent of this session is already named "${args.name}". Choose another name.`);
  const model = args.model === undefined ? undefined : resultOf(await aliases.resolveModelAlias(args.model));
  const { id, finished } = await launchSubAgent(
    {
      title: args.description,
      instruction: args.prompt,
      mode: args.run_in_background ? 'async' : 'sync',
      tools: args.tools,
      inherited: () => defaultSubAgentTools(context.toolNames, [...withheldFromSubAgentsByDefault, ...agentToolNames]),
      system_prompt: args.system_prompt,
      max_turns: args.max_turns,
      model,
      name: args.name,
    },
    context,
  );
  if (args.run_in_background) {
    return JSON.stringify({
      status: 'async_launched',
      agent_id: id,
      description: args.description,
      ...(args.name !== undefined ? { name: args.name } : {}),
      note: 'Read its result with TaskOutput (task_id = agent_id); stop it with TaskStop.',
    });
  }
  const result = await finished;
  if (result === 'stopped') throw new ToolError(`The sub-agent "${args.description}" (${id}) was stopped before it finished.`);
  if (result.status !== 'completed')
    throw new ToolError(`The sub-agent "${args.description}" (${id}) ${result.status}${result.error ? `: ${result.error}` : ''}.`);
  return JSON.stringify({ status: 'completed', agent_id: id, content: result.final_message ?? '' });
}

/** claurst's terminal statuses of an agent task. */
function taskStatus(status: SessionStatus): 'completed' | 'failed' | 'killed' | 'running' {
  if (status === 'completed' || status === 'failed') return status;
  return status === 'stopped' ? 'killed' : 'running';
}

/** claurst `TaskOutput`: reads an agent task, waiting durably (up to `timeout`) for its end when `block`. */
export async function readTaskOutput(args: ToolArgs<typeof taskOutput>, context: ToolContext): Promise<string> {
  const child = ownChild(context.state, args.task_id);
  const ended = await waitForEnd(context.state, child, args.block ? args.timeout : 0);
  if (!ended) return JSON.stringify({ retrieval_status: args.block ? 'timeout' : 'not_ready', task: null });
  return JSON.stringify({ retrieval_status: 'success', task: await endedTask(child, context) });
}

async function endedTask(child: ChildSession, context: ToolContext) {
  const finalMessage = await finalMessageOf(context.state, child);
  const status = taskStatus(child.status);
  return {
    task_id: child.sub_session_id,
    task_type: 'agent',
    status,
    description: child.title,
    output: finalMessage ?? '',
    exit_code: null,
    final_message: finalMessage,
    error: status === 'failed' ? 'The sub-agent failed before it finished.' : status === 'killed' ? 'The task was stopped.' : null,
  };
}

/** claurst `TaskStop` on an agent task: stops it and its sub-agents (leaves first). */
export async function stopTask(taskId: string, context: ToolContext): Promise<string> {
  const child = ownChild(context.state, taskId);
  if (hasEnded(child)) throw new ToolError(`Task ${taskId} is not running: it has already ended (${taskStatus(child.status)}).`);
  const stopped = resultOf(await stopping.stopSessionTree(context.state.identity.session_id, taskId));
  return JSON.stringify({
    message: `Stopped agent task "${child.title}" (${stopped.total_stopped} session(s) stopped, its sub-agents included).`,
    task_id: taskId,
    task_type: 'agent',
  });
}
