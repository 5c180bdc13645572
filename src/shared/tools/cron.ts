import { z } from 'zod';
import { defineTool } from './define-tool.js';

export const maxCronJobs = 50;

export const cronCreate = defineTool({
  name: 'CronCreate',
  description:
    'Schedule a prompt to run in this session on a cron schedule: a standard 5-field expression "M H DoM Mon DoW" in the ' +
    'deployment\'s time zone (e.g. "0 9 * * 1-5" for weekdays at 9:00). recurring true fires at every match until the job ' +
    'expires; false fires once and deletes the job. Returns the job id and the schedule in words.',
  input: () =>
    z.object({
      cron: z.string().trim().min(9).max(200).describe('Five fields: minute hour day-of-month month day-of-week'),
      prompt: z.string().trim().min(1, 'prompt is empty').max(10_000).describe('What to do at each fire time'),
      recurring: z.boolean().default(true),
      durable: z.boolean().default(true).describe('Kept for compatibility: every Arbor job survives worker restarts, as session state'),
    }),
});

export const cronList = defineTool({
  name: 'CronList',
  description: "List this session's scheduled cron jobs.",
  input: () => z.object({}),
});

export const cronDelete = defineTool({
  name: 'CronDelete',
  description: 'Cancel a scheduled cron job.',
  input: () => z.object({ id: z.string().trim().min(1).max(40).describe('The job id CronCreate returned') }),
});

export interface CronJob {
  id: string;
  cron: string;
  human_schedule: string;
  timezone: string;
  prompt: string;
  recurring: boolean;
  durable: boolean;
  firings: number;
  created_at: string;
  expires_at: string;
  next_fire_at: string;
}
