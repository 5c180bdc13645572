import { getSubAgentMessage, listSubAgent, sendMessageToSubAgent, stopSubAgent, subAgent } from './sub-agents.js';
import { todoWrite, todoWriteSoai } from './todo.js';
import { webFetch, webSearch } from './web.js';
import { planGet, planGetSoai, planWrite, planWriteSoai } from './plan.js';
import { stopConversation, stopConversationSoai, wait } from './pause.js';
import { notifyUser, notifyUserSoai } from './notify.js';
import { subagentCancel, subagentSpawn } from './soai-sub-agents.js';
import { askUser } from './ask-user.js';
import { taskCreate, taskGet, taskList, taskUpdate } from './task-board.js';
import { deleteMemory, listMemories, saveMemory, searchMemory, updateMemory } from './memory.js';
import { cancelGoal, completeGoal, createGoal } from './goals.js';
import { cancelLoop, completeLoop, createLoop, listLoops, pauseLoop, resumeLoop } from './loops.js';
import { cronCreate, cronDelete, cronList } from './cron.js';
import { agent, task } from './claurst-agents.js';
import { killShell, taskOutput, taskStop } from './claurst-tasks.js';
import { sendMessage } from './claurst-messages.js';
import { askUserQuestion } from './claurst-questions.js';
import { subagentObserve } from './soai-subagents.js';
import { soaiAskUser } from './soai-ask-user.js';
import { toolSearch } from './tool-search.js';
import { skill } from './skill.js';
import { automationCreate, automationRunEnqueue, automationRunGet, automationRunWait, automationUpdate } from './automations.js';

/** The one list of built-in tools. Dispatch in the workflow is typed over these names, so a tool without a handler does not compile. */
export const builtinTools = [
  askUser,
  todoWrite,
  planWrite,
  planGet,
  wait,
  stopConversation,
  notifyUser,
  subAgent,
  listSubAgent,
  getSubAgentMessage,
  sendMessageToSubAgent,
  stopSubAgent,
  webFetch,
  webSearch,
  taskCreate,
  taskGet,
  taskUpdate,
  taskList,
  saveMemory,
  updateMemory,
  deleteMemory,
  listMemories,
  searchMemory,
  createGoal,
  completeGoal,
  cancelGoal,
  createLoop,
  cancelLoop,
  completeLoop,
  listLoops,
  pauseLoop,
  resumeLoop,
  cronCreate,
  cronList,
  cronDelete,
  automationCreate,
  automationUpdate,
  automationRunEnqueue,
  automationRunGet,
  automationRunWait,
  agent,
  task,
  taskOutput,
  taskStop,
  killShell,
  sendMessage,
  askUserQuestion,
  subagentObserve,
  soaiAskUser,
  toolSearch,
  skill,
  // The soai profile's names for the capabilities above (see profiles/soai.ts).
  todoWriteSoai,
  planWriteSoai,
  planGetSoai,
  notifyUserSoai,
  stopConversationSoai,
  subagentSpawn,
  subagentCancel,
] as const;

export type BuiltinTool = (typeof builtinTools)[number];
export type ToolName = BuiltinTool['name'];

export const toolNames: readonly ToolName[] = builtinTools.map((tool) => tool.name);

const toolsByName = new Map<string, BuiltinTool>(builtinTools.map((tool) => [tool.name, tool]));

export function findTool(name: string): BuiltinTool | undefined {
  return toolsByName.get(name);
}

export function isToolName(name: string): name is ToolName {
  return toolsByName.has(name);
}
