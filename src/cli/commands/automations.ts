import { Command, InvalidArgumentError } from 'commander';
import { DateTime } from 'luxon';
import { automationTerms, inFlagTerms } from '../flag-terms.js';
import { UsageError } from '../usage-error.js';
import type { Automation } from '../../shared/tools/automations.js';
import { createOutput } from '../output.js';
import {
  approvalPolicy,
  connectionSettingsFrom,
  nonEmptyText,
  ownerId,
  timeZone,
  toolProfile,
  withConnectionFlags,
  type ConnectionFlags,
} from '../options.js';
import type { ApprovalPolicy } from '../../shared/approvals.js';
import type { ProfileName } from '../../shared/tools/profiles/names.js';
import { withClient } from '../with-client.js';

interface AutomationFlags extends ConnectionFlags {
  owner: string;
  json?: boolean;
}

const withAutomationFlags = (command: Command) =>
  withConnectionFlags(command).option('--owner <id>', 'whose automations', ownerId, 'default').option('--json', 'print one JSON object');

function describe(automation: Automation): string {
  const state = automation.enabled ? `next run ${automation.next_run_at ?? 'none'}` : 'paused';
  return `${automation.automation_id}  ${automation.title}  [${automation.recurrence} from ${automation.start_local} ${automation.timezone}; ${state}]`;
}

function milliseconds(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0)
    throw new InvalidArgumentError(`--wait must be a number of milliseconds (0 or more), got "${value}".`);
  return number;
}

const list = withAutomationFlags(new Command('list').description("list an owner's automations")).action(async (flags: AutomationFlags) => {
  const output = createOutput(Boolean(flags.json));
  await withClient(connectionSettingsFrom(flags), (client) =>
    inFlagTerms(automationTerms, async () => {
      const automations = await client.automations(flags.owner).list();
      output.result(
        { owner: flags.owner, automations },
        automations.length === 0 ? `no automations for ${flags.owner}` : automations.map(describe).join('\n'),
      );
    }),
  );
});

const create = withAutomationFlags(new Command('create').description('create an automation: a scheduled run with its own new conversation'))
  .requiredOption('--title <title>', 'its name', nonEmptyText('The title'))
  .requiredOption('--prompt <prompt>', 'the first message of each run', nonEmptyText('The prompt'))
  .requiredOption('--start <YYYY-MM-DDTHH:mm>', 'the first run, local to --timezone')
  .option('--timezone <zone>', 'IANA time zone, e.g. Europe/Berlin (not an offset such as UTC+5)', timeZone, 'UTC')
  .option('--recurrence <kind>', 'none, hourly, daily, weekly, monthly or yearly', 'none')
  .option('--tools <names>', 'comma-separated built-in tools the runs may use (default none)')
  .option('--approval <policy>', 'host tool calls that need approval: deny (default: nobody watches a run), allow or ask', approvalPolicy)
  .option('--profile <name>', "the runs' tool profile: rtc (default), claurst, soai or all", toolProfile)
  .action(
    async (
      flags: AutomationFlags & {
        title: string;
        prompt: string;
        start: string;
        timezone: string;
        recurrence: string;
        tools?: string;
        approval?: ApprovalPolicy;
        profile?: ProfileName;
      },
    ) => {
      const output = createOutput(Boolean(flags.json));
      refusePastOneOff(flags.start, flags.timezone, flags.recurrence);
      await withClient(connectionSettingsFrom(flags), (client) =>
        inFlagTerms(automationTerms, async () => {
          const automation = await client.automations(flags.owner).create({
            title: flags.title,
            prompt: flags.prompt,
            start_local: flags.start,
            timezone: flags.timezone,
            recurrence: flags.recurrence,
            ...(flags.approval ? { approval: flags.approval } : {}),
            ...(flags.profile ? { profile: flags.profile } : {}),
            ...(flags.tools
              ? {
                  tools: flags.tools
                    .split(',')
                    .map((name) => name.trim())
                    .filter(Boolean),
                }
              : {}),
          });
          output.result(automation, `created ${describe(automation)}`);
        }),
      );
    },
  );

const run = withAutomationFlags(new Command('run').description('run an automation now'))
  .argument('<automation-id>', 'the automation id')
  .option('--wait <ms>', 'wait up to this long for the run to finish', milliseconds)
  .action(async (automationId: string, flags: AutomationFlags & { wait?: number }) => {
    const output = createOutput(Boolean(flags.json));
    await withClient(connectionSettingsFrom(flags), (client) =>
      inFlagTerms(automationTerms, async () => {
        const automations = client.automations(flags.owner);
        const started = await automations.run(automationId);
        if (flags.wait === undefined) {
          output.result(started, `started run ${started.run_id}`);
          return;
        }
        const finished = await automations.waitRun(started.run_id, flags.wait);
        output.result(
          finished,
          `run ${finished.run_id}: ${finished.status}${finished.timed_out ? ' (still running)' : ''}\n${finished.final_message ?? ''}`,
        );
      }),
    );
  });

const toggle = (name: 'pause' | 'resume') =>
  withAutomationFlags(
    new Command(name).description(name === 'pause' ? 'pause an automation: no scheduled runs until resumed' : 'resume a paused automation'),
  )
    .argument('<automation-id>', 'the automation id')
    .action(async (automationId: string, flags: AutomationFlags) => {
      const output = createOutput(Boolean(flags.json));
      await withClient(connectionSettingsFrom(flags), (client) =>
        inFlagTerms(automationTerms, async () => {
          const automations = client.automations(flags.owner);
          const automation = name === 'pause' ? await automations.pause(automationId) : await automations.resume(automationId);
          output.result(automation, describe(automation));
        }),
      );
    });

const remove = withAutomationFlags(new Command('delete').description('delete an automation (its past runs stay)'))
  .argument('<automation-id>', 'the automation id')
  .action(async (automationId: string, flags: AutomationFlags) => {
    const output = createOutput(Boolean(flags.json));
    await withClient(connectionSettingsFrom(flags), (client) =>
      inFlagTerms(automationTerms, async () => {
        output.result(await client.automations(flags.owner).delete(automationId), `deleted ${automationId}`);
      }),
    );
  });

export const automationsCommand = new Command('automations')
  .description("an owner's automations (Temporal Schedules): list, create, run, pause, resume, delete")
  .addCommand(list.exitOverride())
  .addCommand(create.exitOverride())
  .addCommand(run.exitOverride())
  .addCommand(toggle('pause').exitOverride())
  .addCommand(toggle('resume').exitOverride())
  .addCommand(remove.exitOverride());

/** A one-off run (recurrence none) that would start now or earlier would never run: refused before anything is created. */
function refusePastOneOff(start: string, timezone: string, recurrence: string): void {
  if (recurrence !== 'none') return;
  const at = DateTime.fromISO(start, { zone: timezone });
  if (!at.isValid) return; // the SDK says what is wrong with it, in flag terms
  const now = DateTime.now().setZone(timezone);
  if (at <= now) {
    throw new UsageError(
      `--start ${start} (${timezone}) is in the past: a one-off automation (--recurrence none) needs a start after now, ` +
        `${now.toFormat("yyyy-MM-dd'T'HH:mm")} there. Give a later --start, or a --recurrence.`,
    );
  }
}
