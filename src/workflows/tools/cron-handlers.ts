import type { ToolArgs } from '../../shared/tools/define-tool.js';
import type { CronJob, cronCreate } from '../../shared/tools/cron.js';
import type { ToolContext } from './tool-context.js';
import { resultOf } from './reply.js';

const view = (job: CronJob) => ({
  id: job.id,
  cron: job.cron,
  human_schedule: job.human_schedule,
  prompt: job.prompt,
  recurring: job.recurring,
  durable: job.durable,
  firings: job.firings,
  next_fire_at: job.next_fire_at,
});

export function createCronJob(args: ToolArgs<typeof cronCreate>, { state }: ToolContext): string {
  const job = resultOf(
    state.crons.create(args, { timezone: state.settings.cronTimezone, maxAgeSeconds: state.settings.loopLimits.maxAgeSeconds }),
  );
  const { id, human_schedule, recurring, durable, next_fire_at } = view(job);
  return JSON.stringify({ id, human_schedule, recurring, durable, next_fire_at });
}

export const listCronJobs = ({ state }: ToolContext) => JSON.stringify({ jobs: state.crons.jobs.map(view) });

export function deleteCronJob(id: string, { state }: ToolContext): string {
  const job = resultOf(state.crons.delete(id));
  return JSON.stringify({ id: job.id, deleted: true });
}
