import { automationToolNames } from '../sub-agent-tools.js';
import type { ToolProfile } from './profile.js';

/**
 * Every built-in tool in every naming style at once (the 40 of before profiles, and the claurst and soai agent tools that
 * came with them): the tool set of sessions from before profiles.
 */
export const allProfile: ToolProfile = {
  name: 'all',
  tools: [
    'askUser',
    'todoWrite',
    'planWrite',
    'planGet',
    'wait',
    'stopConversation',
    'notifyUser',
    'subAgent',
    'listSubAgent',
    'getSubAgentMessage',
    'sendMessageToSubAgent',
    'stopSubAgent',
    'webFetch',
    'webSearch',
    'TaskCreate',
    'TaskGet',
    'TaskUpdate',
    'TaskList',
    'saveMemory',
    'updateMemory',
    'deleteMemory',
    'listMemories',
    'searchMemory',
    'createGoal',
    'completeGoal',
    'cancelGoal',
    'createLoop',
    'cancelLoop',
    'completeLoop',
    'listLoops',
    'pauseLoop',
    'resumeLoop',
    'CronCreate',
    'CronList',
    'CronDelete',
    'automation_create',
    'automation_update',
    'automation_run_enqueue',
    'automation_run_get',
    'automation_run_wait',
    // The claurst and soai agent tools, which came with profiles.
    'Agent',
    'Task',
    'TaskOutput',
    'TaskStop',
    'KillShell',
    'SendMessage',
    'AskUserQuestion',
    'subagent_observe',
    'ask_user',
    // Offered only where the worker has a skills folder and the session's host tools are deferred.
    'Skill',
    'ToolSearch',
  ],
  // As before profiles, so the sessions of that time are asked as they were.
  systemPrompt: [
    'You are Arbor, an agent that works through tasks step by step using the tools you are given.',
    'Plan multi-step work with todoWrite and keep it current. When a tool returns an error, read it and correct the call.',
    'Answer in plain, concise prose when the task is done.',
  ].join('\n'),
  descriptionNotes: {
    todoWrite:
      'todoWrite is your own checklist; for work shared with sub-agents, with owners and dependencies, use the task board (TaskCreate).',
    TaskCreate: 'The board is shared by the whole tree; for your own step list use todoWrite.',
    createLoop:
      'Loop: every N seconds in this session. CronCreate: at cron times in this session. automation_create: on a calendar, ' +
      'each run a new session. wait: one pause now.',
    CronCreate: 'For a fixed interval use createLoop; for runs in a new session each time, automation_create; for one pause now, wait.',
    automation_create: 'For repeats within this session use createLoop or CronCreate; for one pause now, wait.',
    wait: 'For repeats use createLoop or CronCreate; for runs in a new session, automation_create.',
  },
  subAgentRemovals: { names: automationToolNames, fixed: false },
};
