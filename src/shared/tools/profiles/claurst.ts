import { automationToolNames } from '../sub-agent-tools.js';
import { renameResultKeys, type ToolProfile } from './profile.js';

/** The result fields claurst names in camelCase (Arbor's handlers write them in snake_case). */
const claurstFieldNames: Readonly<Record<string, string>> = {
  task_id: 'taskId',
  updated_fields: 'updatedFields',
  status_change: 'statusChange',
  human_schedule: 'humanSchedule',
  next_fire_at: 'nextFireAt',
};

const camelCaseResults: ReadonlySet<string> = new Set([
  'TaskCreate',
  'TaskGet',
  'TaskUpdate',
  'TaskList',
  'CronCreate',
  'CronList',
  'CronDelete',
]);

/** The claurst seed (claurst-agent-task-tools): its agent, task board, cron, question, skill and tool search tools. */
export const claurstProfile: ToolProfile = {
  name: 'claurst',
  tools: [
    'Agent',
    'Task',
    'TaskOutput',
    'TaskStop',
    'KillShell',
    'SendMessage',
    'TaskCreate',
    'TaskGet',
    'TaskUpdate',
    'TaskList',
    'CronCreate',
    'CronList',
    'CronDelete',
    'AskUserQuestion',
    'Skill',
    'ToolSearch',
  ],
  systemPrompt: [
    'You are Arbor, an agent that works through tasks step by step using the tools you are given.',
    'Delegate a whole sub-task to another agent with Agent (it waits for the answer, or with run_in_background returns ' +
      'an id at once); read a background agent with TaskOutput, stop it with TaskStop, and message a named agent (or "*" ' +
      'for all) with SendMessage. Ask the user to choose with AskUserQuestion.',
    'Track work on the shared task board (TaskCreate, TaskGet, TaskUpdate, TaskList): a lightweight record with a status, ' +
      'a description, an owner and dependency links (blocks, blockedBy), not a running agent.',
    'Schedule a prompt for later with CronCreate (a 5-field cron expression; recurring or once), and see or cancel jobs ' +
      'with CronList and CronDelete. When a tool returns an error, read it and correct the call.',
    'Answer in plain, concise prose when the task is done.',
  ].join('\n'),
  descriptionNotes: {
    TaskCreate: 'To delegate a whole sub-task to another agent rather than record it, use Agent where you have it.',
  },
  subAgentRemovals: { names: ['Agent', 'Task', ...automationToolNames], fixed: false },
  // The task board's and cron's results; the agent tools already answer in their own field names.
  adaptResult: (toolName, content) => (camelCaseResults.has(toolName) ? renameResultKeys(content, claurstFieldNames) : content),
};
