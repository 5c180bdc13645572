import { automationToolNames } from '../sub-agent-tools.js';
import type { ToolProfile } from './profile.js';

/**
 * The rtc seed (rtc-agent-builtin-tools): its 18 built-in tools, and the memory tools its memory system names. Arbor's
 * task board, cron, automations, plan, notify, wait and stopConversation belong to the seeds that name them (claurst,
 * soai), not here.
 */
export const rtcProfile: ToolProfile = {
  name: 'rtc',
  tools: [
    'subAgent',
    'listSubAgent',
    'getSubAgentMessage',
    'stopSubAgent',
    'sendMessageToSubAgent',
    'askUser',
    'todoWrite',
    'createGoal',
    'completeGoal',
    'cancelGoal',
    'createLoop',
    'cancelLoop',
    'completeLoop',
    'listLoops',
    'pauseLoop',
    'resumeLoop',
    'webSearch',
    'webFetch',
    'saveMemory',
    'updateMemory',
    'deleteMemory',
    'listMemories',
    'searchMemory',
    // Every profile has these where the worker offers them (a skills folder, host tools deferred).
    'Skill',
    'ToolSearch',
  ],
  systemPrompt: [
    'You are Arbor, an agent that works through tasks step by step using the tools you are given.',
    'Plan multi-step work with todoWrite and keep it current. Hand independent multi-step sub-tasks to sub-agents with subAgent ' +
      '(async by default; sync when you need the result before going on), and ask the user with askUser when a choice is theirs.',
    'A goal (createGoal) drives your turns until its condition is met; a loop (createLoop) runs a prompt every N seconds. ' +
      'Remember what should outlive this conversation with the memory tools. When a tool returns an error, read it and correct the call.',
    'Answer in plain, concise prose when the task is done.',
  ].join('\n'),
  descriptionNotes: {
    createLoop: 'A loop runs every N seconds; to work until a condition holds and then stop, use createGoal (the two combine).',
    createGoal: 'A goal works until its condition is met; to repeat a prompt every N seconds, use createLoop.',
  },
  subAgentRemovals: { names: automationToolNames, fixed: false },
};
