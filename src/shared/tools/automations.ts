import { z } from 'zod';
import { defineTool } from './define-tool.js';

export const recurrences = ['none', 'hourly', 'daily', 'weekly', 'monthly', 'yearly'] as const;
export type Recurrence = (typeof recurrences)[number];

const automationId = () =>
  z
    .string()
    .trim()
    .regex(/^automation-[0-9a-f-]{36}$/, 'an automation_id looks like automation-<uuid>')
    .describe('The automation_id automation_create returned');
const startLocal = () =>
  z
    .string()
    .trim()
    .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/, 'start_local is a local date and time of the form YYYY-MM-DDTHH:mm')
    .describe('First run, local to timezone: YYYY-MM-DDTHH:mm');
const recurrence = () =>
  z
    .string()
    .trim()
    .refine((value) => (recurrences as readonly string[]).includes(value), {
      message: `recurrence is one of ${recurrences.join(', ')}; cron expressions are not accepted`,
    })
    .transform((value) => value as Recurrence);

const automationFields = () => ({
  title: z.string().trim().min(1).max(200),
  prompt: z.string().trim().min(1, 'prompt is empty').max(20_000).describe('The first message of each run'),
  timezone: z.string().trim().min(1).max(100).describe('IANA time zone, e.g. Europe/Berlin; not an offset such as UTC+5'),
  start_local: startLocal(),
  recurrence: recurrence().describe(`${recurrences.join(', ')}; cron expressions are not accepted`),
  tools: z.array(z.string()).max(100).optional().describe('Built-in tools the runs may use; omitted: none, a plain prompt'),
});

export const automationCreate = defineTool({
  name: 'automation_create',
  destructive: true,
  description:
    "Create an automation: a scheduled agent run with its own new conversation, for this session's owner. Schedule it " +
    'with a timezone, a local start (YYYY-MM-DDTHH:mm) and a recurrence: none, hourly, daily, weekly, monthly or yearly.',
  input: () => z.object(automationFields()),
});

export const automationUpdate = defineTool({
  name: 'automation_update',
  destructive: true,
  description: 'Change an automation by automation_id; every other field is optional. enabled false pauses it.',
  input: () => {
    const fields = automationFields();
    return z.object({
      automation_id: automationId(),
      title: fields.title.optional(),
      prompt: fields.prompt.optional(),
      timezone: fields.timezone.optional(),
      start_local: fields.start_local.optional(),
      recurrence: recurrence().optional(),
      tools: fields.tools,
      enabled: z.boolean().optional(),
    });
  },
});

export const automationRunEnqueue = defineTool({
  name: 'automation_run_enqueue',
  destructive: true,
  description: 'Run an automation now, without waiting for its schedule. Returns the run_id.',
  input: () => z.object({ automation_id: automationId() }),
});

const runId = () => z.string().trim().min(1).max(300).describe('A run_id from automation_run_enqueue or the automation');

export const automationRunGet = defineTool({
  name: 'automation_run_get',
  description: 'Fetch one automation run by run_id: its status and, once finished, its final message.',
  input: () => z.object({ run_id: runId() }),
});

export const automationRunWait = defineTool({
  name: 'automation_run_wait',
  waits: true,
  description: 'Wait until a run finishes. timeout_ms 0 returns the state at once, null waits without limit, omitted waits 60 seconds.',
  input: () =>
    z.object({
      run_id: runId(),
      timeout_ms: z
        .number()
        .int()
        .min(0)
        .max(7 * 86_400_000)
        .nullable()
        .optional(),
    }),
});

export type AutomationCreateArgs = z.infer<typeof automationCreate.input>;
export type AutomationUpdateArgs = z.infer<typeof automationUpdate.input>;

export interface Automation {
  automation_id: string;
  owner: string;
  title: string;
  prompt: string;
  timezone: string;
  start_local: string;
  recurrence: Recurrence;
  tools: string[];
  enabled: boolean;
  next_run_at: string | null;
  recent_run_ids: string[];
}

export type AutomationRunStatus = 'running' | 'completed' | 'failed' | 'stopped';

export interface AutomationRun {
  run_id: string;
  automation_id: string;
  status: AutomationRunStatus;
  started_at: string | null;
  final_message: string | null;
}

/** Ids: the schedule id is the automation id; a run is a root session whose id starts with the automation id. */
export const automationIdPrefix = 'automation-';
export const runIdOf = (automationId: string, suffix: string) => `${automationId}-run-${suffix}`;
export const automationIdOfRun = (runId: string) => /^(automation-[0-9a-f-]{36})-run-/.exec(runId)?.[1];
