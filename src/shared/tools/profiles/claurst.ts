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

/**
 * The claurst seed (claurst-agent-task-tools): its task board and cron tools. Its Agent (alias Task), TaskOutput,
 * TaskStop, SendMessage, AskUserQuestion, Skill and ToolSearch join this list by name once they are built in.
 */
export const claurstProfile: ToolProfile = {
  name: 'claurst',
  tools: ['TaskCreate', 'TaskGet', 'TaskUpdate', 'TaskList', 'CronCreate', 'CronList', 'CronDelete'],
  systemPrompt: [
    'You are Arbor, an agent that works through tasks step by step using the tools you are given.',
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
  adaptResult: (_toolName, content) => renameResultKeys(content, claurstFieldNames),
};
