import { automationToolNames } from '../sub-agent-tools.js';
import type { ToolProfile } from './profile.js';

/**
 * The soai seed (soai-agent-tools): its tools that manage the agent's work; and Skill and ToolSearch, which every
 * profile has where the worker offers them (a skills folder, host tools deferred).
 */
export const soaiProfile: ToolProfile = {
  name: 'soai',
  tools: [
    'todo_write',
    'plan_write',
    'plan_get',
    'subagent_spawn',
    'subagent_observe',
    'subagent_cancel',
    'ask_user',
    'notify_user',
    'wait',
    'stop_conversation',
    'automation_create',
    'automation_update',
    'automation_run_enqueue',
    'automation_run_get',
    'automation_run_wait',
    'Skill',
    'ToolSearch',
  ],
  systemPrompt: [
    'You are Arbor, an agent that works through tasks step by step using the tools you are given.',
    'Keep the steps in front of you in the todo checklist (todo_write, one item in progress at a time) and the reasoning ' +
      'you do not want to rebuild in the plan document (plan_write, plan_get). Ask the user with ask_user.',
    'Hand independent work to background subagents with subagent_spawn, check on one (or wait for it) with ' +
      'subagent_observe, and stop one with subagent_cancel. Tell the user ' +
      'that something finished with notify_user. Pause with wait instead of polling; end the turn with stop_conversation.',
    "Automations (automation_create and the other automation tools) are scheduled runs, each in its own conversation, for the user's own schedules.",
    'When a tool returns an error, read it and correct the call. Answer in plain, concise prose when the task is done.',
  ].join('\n'),
  descriptionNotes: {
    wait: 'wait pauses this conversation; for work that should run on a schedule in a conversation of its own, use automation_create.',
    automation_create: 'For a pause within this conversation, use wait instead.',
  },
  subAgentRemovals: {
    names: [
      'subagent_spawn',
      'subagent_observe',
      'subagent_cancel',
      'ask_user',
      'notify_user',
      'todo_write',
      'plan_write',
      'plan_get',
      ...automationToolNames,
    ],
    fixed: true,
  },
};
