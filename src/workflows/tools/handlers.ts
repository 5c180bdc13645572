import type { BuiltinTool, ToolName } from '../../shared/tools/registry.js';
import type { ToolArgs } from '../../shared/tools/define-tool.js';
import { getSubAgentMessage, listSubAgents, sendMessageToSubAgent, spawnSubAgent, stopSubAgent } from './sub-agent-handlers.js';
import type { ToolContext } from './tool-context.js';
import { fetchWeb, searchWeb } from './web-handlers.js';
import { readPlan, writePlan } from './plan-handlers.js';
import { endTurn, waitFor } from './pause-handlers.js';
import { postNotification } from './notify-handler.js';
import { writeTodos } from './todo-handler.js';
import { askQuestions } from './ask-user-handler.js';
import { useTaskBoard } from './task-board-handlers.js';
import { readMemory, writeMemory } from './memory-handlers.js';
import { endGoal, startGoal } from './goal-handlers.js';
import { createCronJob, deleteCronJob, listCronJobs } from './cron-handlers.js';
import { automationTool } from './automation-handlers.js';
import { searchDeferredTools } from './tool-search-handler.js';
import { runSkill } from './skill-handler.js';
import { cancelSoaiSubagent, spawnSoaiSubagent } from './soai-sub-agent-handlers.js';
import { cancelLoopById, completeRunningLoop, listAllLoops, pauseLoopById, resumeLoopById, startLoop } from './loop-handlers.js';

import { readTaskOutput, runAgent, stopTask } from './claurst-agent-handlers.js';
import { sendAgentMessage } from './send-message-handler.js';
import { askUserQuestions } from './claurst-question-handler.js';
import { observeSubagent } from './soai-observe-handler.js';
import { askUserSoai } from './soai-ask-user-handler.js';

type ToolHandler<T extends BuiltinTool> = (args: ToolArgs<T>, context: ToolContext) => string | Promise<string>;

/** One handler per built-in tool; a tool in the registry without an entry here is a compile error. */
export type ToolHandlers = { [Name in ToolName]: ToolHandler<Extract<BuiltinTool, { name: Name }>> };

export const toolHandlers: ToolHandlers = {
  askUser: (args, context) => askQuestions(args, context),
  todoWrite: (args, context) => writeTodos(args.todos, context),
  subAgent: (args, context) => spawnSubAgent(args, context),
  listSubAgent: (_args, context) => listSubAgents(context),
  getSubAgentMessage: (args, context) => getSubAgentMessage(args.sub_session_id, context),
  sendMessageToSubAgent: (args, context) => sendMessageToSubAgent(args.sub_session_id, args.message, context),
  stopSubAgent: (args, context) => stopSubAgent(args.sub_session_id, context),
  webSearch: (args) => searchWeb(args),
  webFetch: (args, context) => fetchWeb(args, context),
  planWrite: (args, context) => writePlan(args, context),
  planGet: (_args, context) => readPlan(context),
  wait: (args, context) => waitFor(args, context),
  stopConversation: (_args, context) => endTurn(context),
  notifyUser: (args, context) => postNotification(args, context),
  TaskCreate: (args, context) => useTaskBoard({ op: 'create', args }, context),
  TaskGet: (args, context) => useTaskBoard({ op: 'get', args }, context),
  TaskUpdate: (args, context) => useTaskBoard({ op: 'update', args }, context),
  TaskList: (_args, context) => useTaskBoard({ op: 'list' }, context),
  saveMemory: (args, context) => writeMemory({ op: 'save', args }, context),
  updateMemory: (args, context) => writeMemory({ op: 'update', args }, context),
  deleteMemory: (args, context) => writeMemory({ op: 'delete', args }, context),
  listMemories: (args, context) => readMemory({ op: 'list', args }, context),
  searchMemory: (args, context) => readMemory({ op: 'search', args }, context),
  createGoal: (args, context) => startGoal(args, context),
  completeGoal: (args, context) => endGoal(args.goal_id, 'completed', context),
  cancelGoal: (args, context) => endGoal(args.goal_id, 'cancelled', context),
  createLoop: (args, context) => startLoop(args, context),
  cancelLoop: (args, context) => cancelLoopById(args.loop_id, context),
  completeLoop: (args, context) => completeRunningLoop(args.reason, context),
  listLoops: (_args, context) => listAllLoops(context),
  pauseLoop: (args, context) => pauseLoopById(args.loop_id, context),
  resumeLoop: (args, context) => resumeLoopById(args.loop_id, context),
  CronCreate: (args, context) => createCronJob(args, context),
  CronList: (_args, context) => listCronJobs(context),
  CronDelete: (args, context) => deleteCronJob(args.id, context),
  // A run has the profile of the session that created its automation (`all`, left out, for sessions from before profiles).
  automation_create: (args, context) =>
    automationTool({ op: 'create', args, ...(context.state.profile !== 'all' ? { profile: context.state.profile } : {}) }, context),
  automation_update: (args, context) => automationTool({ op: 'update', args }, context),
  automation_run_enqueue: (args, context) => automationTool({ op: 'run_enqueue', automation_id: args.automation_id }, context),
  automation_run_get: (args, context) => automationTool({ op: 'run_get', run_id: args.run_id }, context),
  automation_run_wait: (args, context) =>
    automationTool({ op: 'run_wait', run_id: args.run_id, timeout_ms: args.timeout_ms === undefined ? 60_000 : args.timeout_ms }, context),
  Agent: (args, context) => runAgent(args, context),
  Task: (args, context) => runAgent(args, context),
  TaskOutput: (args, context) => readTaskOutput(args, context),
  TaskStop: (args, context) => stopTask(args.task_id, context),
  KillShell: (args, context) => stopTask((args.task_id ?? args.shell_id)!, context),
  SendMessage: (args, context) => sendAgentMessage(args, context),
  AskUserQuestion: (args, context) => askUserQuestions(args, context),
  subagent_observe: (args, context) => observeSubagent(args, context),
  ask_user: (args, context) => askUserSoai(args, context),
  ToolSearch: (args, context) => searchDeferredTools(args, context),
  Skill: (args, context) => runSkill(args, context),
  // The soai profile: its names for the capabilities above.
  todo_write: (args, context) => writeTodos(args.todos, context),
  plan_write: (args, context) => writePlan(args, context),
  plan_get: (_args, context) => readPlan(context),
  notify_user: (args, context) => postNotification(args, context),
  stop_conversation: (_args, context) => endTurn(context),
  subagent_spawn: (args, context) => spawnSoaiSubagent(args, context),
  subagent_cancel: (args, context) => cancelSoaiSubagent(args.subagent_id, context),
};
