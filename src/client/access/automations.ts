import { neutralTitle } from '../../shared/neutral-title.js';
import { createHash, randomUUID } from 'node:crypto';
import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  WorkflowNotFoundError,
  type Client,
  type ScheduleOptionsStartWorkflowAction,
} from '@temporalio/client';
import { snapshotQuery } from '../../shared/messages.js';
import { sessionWorkflowType, type SessionInput } from '../../shared/session.js';
import {
  automationIdOfRun,
  automationIdPrefix,
  runIdOf,
  type Automation,
  type AutomationCreateArgs,
  type AutomationRun,
  type AutomationUpdateArgs,
} from '../../shared/tools/automations.js';
import type { SessionWorkflow } from '../../shared/workflow-types.js';
import type { ApprovalPolicy } from '../../shared/approvals.js';
import type { ProfileName } from '../../shared/tools/profiles/names.js';
import { scheduleSpecFor } from './schedule-spec.js';
import { boundedQuery } from './query-failures.js';
import { listingClient } from './listing-client.js';

/** What a schedule's memo keeps about its automation. */
interface AutomationMemo {
  owner: string;
  title: string;
  prompt: string;
  timezone: string;
  start_local: string;
  recurrence: Automation['recurrence'];
  tools: string[];
  /** The runs' approval policy; absent: `deny`. */
  approval?: ApprovalPolicy;
  /** The runs' tool profile; absent (automations from before profiles): `all`. */
  profile?: ProfileName;
  /** Made with neutral titles: the schedule's note, its runs' summaries and ArborTitle name no title (kept on update). */
  neutral_titles?: true;
}

export interface AutomationsOptions {
  /** Automations created here show no title where Temporal keeps it unencrypted (see ArborClientOptions). */
  neutralTitles?: boolean;
}

const memoKey = 'arbor_automation';
/** How long a triggered schedule may take to start its run before runNow gives up looking for it. */
const triggerTakenWithinMs = 15_000;
/** The schedule's own memo names the owner (it never changes), so listing can filter without describing every schedule. */
const ownerKey = 'arbor_owner';

/** A refusal the caller (model or person) can act on. */
export class AutomationError extends Error {
  override readonly name = 'AutomationError';
}

/**
 * Automations: each is a Temporal Schedule (id = automation_id, visible on the Web UI's Schedules page) whose action
 * starts a new root session that ends after its work. Every operation is limited to the owner's own automations.
 */
export function createAutomations(client: Client, taskQueue: string, options: AutomationsOptions = {}) {
  const runInput = (memo: AutomationMemo): SessionInput => ({
    instruction: memo.prompt,
    title: memo.title,
    owner: memo.owner,
    tools: memo.tools,
    ends_when_done: true,
    // Nobody watches a scheduled run, so a call that needs approval is denied unless the automation says otherwise.
    approval: memo.approval ?? 'deny',
    // Automations from before profiles name none, and their runs have `all`, as they had.
    ...(memo.profile ? { profile: memo.profile } : {}),
    ...(memo.neutral_titles ? { neutral_titles: true as const } : {}),
  });

  const action = (automationId: string, memo: AutomationMemo): ScheduleOptionsStartWorkflowAction<SessionWorkflow> => ({
    type: 'startWorkflow',
    workflowType: sessionWorkflowType,
    workflowId: runIdOf(automationId, 'scheduled'),
    taskQueue,
    args: [runInput(memo)],
    staticSummary: memo.neutral_titles ? neutralTitle : memo.title,
    // The automation's settings travel with the action, which (unlike the schedule's own memo) an update can change.
    memo: { [memoKey]: memo },
  });

  function timing(memo: AutomationMemo) {
    const timing = scheduleSpecFor(memo);
    if (!timing.ok) throw new AutomationError(timing.error);
    return timing.result;
  }

  async function describeOwned(owner: string, automationId: string) {
    try {
      const description = await client.schedule.getHandle(automationId).describe();
      const memo = description.action.memo?.[memoKey] as AutomationMemo | undefined;
      if (description.memo?.[ownerKey] === owner && memo?.owner === owner) return { description, memo };
    } catch (error) {
      if (!(error instanceof ScheduleNotFoundError)) throw error;
    }
    throw new AutomationError(`No automation ${automationId} for ${owner}.`);
  }

  function view(
    automationId: string,
    memo: AutomationMemo,
    info: { paused: boolean; next?: Date | undefined; recent: string[] },
  ): Automation {
    return {
      automation_id: automationId,
      owner: memo.owner,
      title: memo.title,
      prompt: memo.prompt,
      timezone: memo.timezone,
      start_local: memo.start_local,
      recurrence: memo.recurrence,
      tools: memo.tools,
      enabled: !info.paused,
      next_run_at: info.paused || !info.next ? null : info.next.toISOString(),
      recent_run_ids: info.recent,
    };
  }

  async function get(owner: string, automationId: string): Promise<Automation> {
    const { description, memo } = await describeOwned(owner, automationId);
    return view(automationId, memo, {
      paused: description.state.paused,
      next: description.info.nextActionTimes[0],
      recent: description.info.recentActions.map((action) => action.action.workflow.workflowId),
    });
  }

  async function getRun(owner: string, runId: string): Promise<AutomationRun> {
    const automationId = automationIdOfRun(runId);
    if (!automationId) throw new AutomationError(`"${runId}" is not an automation run id.`);
    const handle = client.workflow.getHandle(runId);
    try {
      const [description, snapshot] = await Promise.all([
        handle.describe(),
        boundedQuery(client, runId, () => handle.query(snapshotQuery)),
      ]);
      if (snapshot.owner !== owner) throw new AutomationError(`No run ${runId} for ${owner}.`);
      const status = runStatus(description.status.name);
      const last = snapshot.last_message;
      return {
        run_id: runId,
        automation_id: automationId,
        status: status === 'completed' && snapshot.status === 'failed' ? 'failed' : status,
        started_at: description.startTime.toISOString(),
        final_message: status === 'running' ? null : last?.role === 'assistant' ? last.content : null,
      };
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) throw new AutomationError(`No run ${runId}.`);
      throw error;
    }
  }

  function createSchedule(automationId: string, memo: AutomationMemo, spec: ReturnType<typeof timing>['spec'], once: boolean) {
    return client.schedule.create({
      scheduleId: automationId,
      spec,
      action: action(automationId, memo),
      policies: { overlap: ScheduleOverlapPolicy.BUFFER_ONE, catchupWindow: '1 minute' },
      state: {
        note: memo.neutral_titles ? 'Arbor automation' : `Arbor automation "${memo.title}" of ${memo.owner}`,
        ...(once ? { remainingActions: 1 } : {}),
      },
      memo: { [ownerKey]: memo.owner },
    });
  }

  return {
    /**
     * Creates an automation. With a `key` (fixed per tool call) the automation's id is derived from it, so a create
     * retried after its reply was lost finds the automation its first attempt made instead of making a second.
     */
    async create(
      owner: string,
      args: AutomationCreateArgs & { approval?: ApprovalPolicy; profile?: ProfileName },
      key?: string,
    ): Promise<Automation> {
      const automationId = `${automationIdPrefix}${key === undefined ? randomUUID() : uuidFromKey(key)}`;
      const memo: AutomationMemo = {
        owner,
        ...args,
        tools: args.tools ?? [],
        ...(options.neutralTitles ? { neutral_titles: true as const } : {}),
      };
      const { spec, once } = timing(memo);
      try {
        await createSchedule(automationId, memo, spec, once);
      } catch (error) {
        if (!(key !== undefined && error instanceof ScheduleAlreadyRunning)) throw error;
      }
      return get(owner, automationId);
    },

    async update(owner: string, args: AutomationUpdateArgs): Promise<Automation> {
      const { memo } = await describeOwned(owner, args.automation_id);
      const { automation_id: automationId, enabled, ...changes } = args;
      const next: AutomationMemo = { ...memo, ...Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) };
      const { spec, once } = timing(next);
      const handle = client.schedule.getHandle(automationId);
      await handle.update((previous) => ({
        ...previous,
        spec,
        action: action(automationId, next),
        state: {
          ...previous.state,
          ...(once ? { remainingActions: 1 } : { remainingActions: undefined }),
          ...(enabled === undefined ? {} : { paused: !enabled }),
        },
      }));
      return get(owner, automationId);
    },

    get,

    async list(owner: string): Promise<Automation[]> {
      const ids: string[] = [];
      // Through the listing client: another owner's schedule may have a memo encrypted with a key this client lacks.
      for await (const summary of listingClient(client).schedule.list()) {
        if (summary.scheduleId.startsWith(automationIdPrefix) && summary.memo?.[ownerKey] === owner) ids.push(summary.scheduleId);
      }
      return Promise.all(ids.map((id) => get(owner, id)));
    },

    async setEnabled(owner: string, automationId: string, enabled: boolean): Promise<Automation> {
      await describeOwned(owner, automationId);
      const handle = client.schedule.getHandle(automationId);
      if (enabled) await handle.unpause('resumed by Arbor');
      else await handle.pause('paused by Arbor');
      return get(owner, automationId);
    },

    async delete(owner: string, automationId: string): Promise<{ automation_id: string; deleted: true }> {
      await describeOwned(owner, automationId);
      await client.schedule.getHandle(automationId).delete();
      return { automation_id: automationId, deleted: true };
    },

    /**
     * Runs an automation now through its schedule (Temporal's trigger, whatever its overlap policy or pause), so the
     * run is one of the schedule's actions: the Schedules page and `recent_run_ids` show it like a scheduled one. The
     * schedule names the run (`…-run-scheduled-<time>`); it is read back from the schedule's recent actions.
     */
    async runNow(owner: string, automationId: string): Promise<{ run_id: string; automation_id: string }> {
      await describeOwned(owner, automationId);
      const handle = client.schedule.getHandle(automationId);
      const before = await handle.describe();
      const known = new Set(before.info.recentActions.map((action) => action.action.workflow.workflowId));
      await handle.trigger(ScheduleOverlapPolicy.ALLOW_ALL);
      const deadline = Date.now() + triggerTakenWithinMs;
      for (let delay = 100; ; delay = Math.min(delay * 2, 1_000)) {
        const { info } = await handle.describe();
        if (info.numActionsTaken > before.info.numActionsTaken) {
          const taken = info.recentActions.map((action) => action.action.workflow.workflowId).filter((id) => !known.has(id));
          if (taken.length > 0) return { run_id: taken.at(-1)!, automation_id: automationId };
        }
        if (Date.now() >= deadline) {
          throw new AutomationError(
            `The schedule of ${automationId} took no run within ${triggerTakenWithinMs / 1000} s of being triggered (a run started in the same second has the same id).`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    },

    getRun,

    /** Waits for a run to finish: 0 returns at once, null waits without limit; `onWait` is called between looks. */
    async waitRun(
      owner: string,
      runId: string,
      timeoutMs: number | null,
      onWait: () => void = () => {},
    ): Promise<AutomationRun & { timed_out: boolean }> {
      const deadline = timeoutMs === null ? Infinity : Date.now() + timeoutMs;
      for (let delay = 250; ; delay = Math.min(delay * 2, 5_000)) {
        const run = await getRun(owner, runId);
        if (run.status !== 'running') return { ...run, timed_out: false };
        if (Date.now() >= deadline) return { ...run, timed_out: true };
        onWait();
        await new Promise((resolve) => setTimeout(resolve, Math.min(delay, Math.max(0, deadline - Date.now()))));
      }
    },
  };
}

export type Automations = ReturnType<typeof createAutomations>;

const closedStatuses: Record<string, AutomationRun['status']> = {
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'stopped',
  TERMINATED: 'stopped',
  TIMED_OUT: 'failed',
};

function runStatus(workflowStatus: string): AutomationRun['status'] {
  return closedStatuses[workflowStatus] ?? 'running';
}

/** A UUID made from a key (its SHA-256, in UUID form), so one key always names one automation. */
function uuidFromKey(key: string): string {
  const hex = createHash('sha256').update(key).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
