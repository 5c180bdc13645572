import { CronExpressionParser } from 'cron-parser';
import cronstrue from 'cronstrue';
import { maxCronJobs, type CronJob } from '../shared/tools/cron.js';
import type { ToolReply } from '../shared/tool-reply.js';
import type { InboxMessage } from '../shared/session.js';
import { cronFiringPrefix } from '../shared/message-sources.js';

const yearMs = 366 * 86_400_000;

export interface CronSettings {
  timezone: string;
  maxAgeSeconds: number;
}

/**
 * A session's cron jobs. Next fire times come from cron-parser on workflow time (deterministic on replay), in the
 * deployment's time zone; firings are queued like loop firings by the session's clock. Pure: no Temporal calls.
 */
export class CronJobs {
  version = 0;

  constructor(
    public jobs: CronJob[],
    private readonly now: () => Date,
    private readonly newId: () => string,
  ) {}

  create(args: { cron: string; prompt: string; recurring: boolean; durable: boolean }, settings: CronSettings): ToolReply<CronJob> {
    const fields = args.cron.split(/\s+/);
    if (fields.length !== 5)
      return {
        ok: false,
        error: `"${args.cron}" has ${fields.length} fields; a cron expression here has exactly 5: minute hour day-of-month month day-of-week.`,
      };
    if (this.jobs.length >= maxCronJobs)
      return { ok: false, error: `This session already has ${maxCronJobs} cron jobs, the most it may; delete one first.` };
    const now = this.now();
    const next = nextFire(args.cron, now, settings.timezone, new Date(now.getTime() + yearMs));
    if (!next.ok) return next;
    const job: CronJob = {
      id: `cron-${this.newId().slice(0, 8)}`,
      cron: args.cron,
      human_schedule: `${cronstrue.toString(args.cron, { use24HourTimeFormat: true, verbose: false })} (${settings.timezone})`,
      timezone: settings.timezone,
      prompt: args.prompt,
      recurring: args.recurring,
      durable: args.durable,
      firings: 0,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + settings.maxAgeSeconds * 1000).toISOString(),
      next_fire_at: next.result.toISOString(),
    };
    this.jobs.push(job);
    this.version += 1;
    return { ok: true, result: job };
  }

  delete(id: string): ToolReply<CronJob> {
    const job = this.jobs.find((candidate) => candidate.id === id);
    if (!job) return { ok: false, error: `No cron job ${id}. Jobs: ${this.jobs.map((other) => other.id).join(', ') || 'none'}.` };
    this.jobs = this.jobs.filter((other) => other !== job);
    this.version += 1;
    return { ok: true, result: job };
  }

  nextWake(): number | undefined {
    const times = this.jobs.map((job) => Math.min(Date.parse(job.next_fire_at), Date.parse(job.expires_at)));
    return times.length === 0 ? undefined : Math.min(...times);
  }

  /** Queues every due firing; a one-shot job is deleted after it fires, a recurring one at its expiry. */
  fireDue(): InboxMessage[] {
    const now = this.now();
    const messages: InboxMessage[] = [];
    for (const job of [...this.jobs]) {
      if (now.getTime() >= Date.parse(job.expires_at)) {
        this.delete(job.id);
        continue;
      }
      if (now.getTime() < Date.parse(job.next_fire_at)) continue;
      job.firings += 1;
      messages.push({
        id: `${cronFiringPrefix}${job.id}:${job.firings}`,
        content: `[Cron ${job.id}, ${job.human_schedule}] ${job.prompt}`,
        source: 'cron',
      });
      if (!job.recurring) {
        this.delete(job.id);
        continue;
      }
      const next = nextFire(job.cron, now, job.timezone, new Date(Date.parse(job.expires_at)));
      if (!next.ok) this.delete(job.id);
      else {
        job.next_fire_at = next.result.toISOString();
        this.version += 1;
      }
    }
    return messages;
  }
}

/** The first match strictly after `after`, or refused with a message saying why there is none before `until`. */
function nextFire(cron: string, after: Date, timezone: string, until: Date): ToolReply<Date> {
  try {
    const expression = CronExpressionParser.parse(cron, { currentDate: after, endDate: until, tz: timezone });
    if (!expression.hasNext()) return { ok: false, error: `"${cron}" never fires within the next year; check the day and month fields.` };
    return { ok: true, result: expression.next().toDate() };
  } catch (error) {
    return { ok: false, error: `"${cron}" is not a valid cron expression: ${(error as Error).message}.` };
  }
}
