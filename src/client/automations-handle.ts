import type { Client } from '@temporalio/client';
import type { z } from 'zod';
import { AutomationError, createAutomations, type Automations, type AutomationsOptions } from './access/automations.js';
import { ArborClientError } from './errors.js';
import { approvalPolicies, type ApprovalPolicy } from '../shared/approvals.js';
import { checkOwner, parseClientInput } from './input.js';
import { defaultProfile, isProfileName, profileNames, profileTools, type ProfileName } from '../shared/tools/profiles/index.js';
import { isToolName } from '../shared/tools/registry.js';
import {
  automationCreate,
  automationUpdate,
  type Automation,
  type AutomationCreateArgs,
  type AutomationRun,
  type AutomationUpdateArgs,
} from '../shared/tools/automations.js';

/** One owner's automations (Temporal Schedules that start a new session each run), from outside any session. */
export class AutomationsHandle {
  private readonly automations: Automations;

  constructor(
    readonly owner: string,
    client: Client,
    taskQueue: string,
    options: AutomationsOptions = {},
  ) {
    checkOwner(owner);
    this.automations = createAutomations(client, taskQueue, options);
  }

  /**
   * `approval` is the runs' approval policy for host tool calls that need it (default `deny`: nobody is there to
   * approve); only a client sets it, never a session's `automation_create`. `profile` is the runs' tool profile (default
   * `rtc`; a session's `automation_create` gives its own).
   */
  create(args: z.input<typeof automationCreate.input> & { approval?: ApprovalPolicy; profile?: ProfileName }): Promise<Automation> {
    const { approval, profile = defaultProfile, ...fields } = args;
    if (approval !== undefined && !approvalPolicies.includes(approval)) {
      return Promise.reject(new ArborClientError(`Invalid approval policy "${String(approval)}": one of ${approvalPolicies.join(', ')}.`));
    }
    if (!isProfileName(profile)) {
      return Promise.reject(new ArborClientError(`Invalid profile "${String(profile)}": one of ${profileNames.join(', ')}.`));
    }
    const outsideProfile = (fields.tools ?? []).filter((name) => isToolName(name) && !profileTools(profile).includes(name));
    if (outsideProfile.length > 0) {
      return Promise.reject(
        new ArborClientError(
          `The ${profile} profile has no tool(s) ${outsideProfile.join(', ')}; its built-in tools: ${profileTools(profile).join(', ')}.`,
        ),
      );
    }
    return refusalsAsClientErrors(() =>
      this.automations.create(this.owner, {
        ...(parseClientInput(automationCreate.input, fields) as AutomationCreateArgs),
        ...(approval ? { approval } : {}),
        profile,
      }),
    );
  }

  update(args: z.input<typeof automationUpdate.input>): Promise<Automation> {
    return refusalsAsClientErrors(() =>
      this.automations.update(this.owner, parseClientInput(automationUpdate.input, args) as AutomationUpdateArgs),
    );
  }

  list(): Promise<Automation[]> {
    return this.automations.list(this.owner);
  }

  get(automationId: string): Promise<Automation> {
    return refusalsAsClientErrors(() => this.automations.get(this.owner, automationId));
  }

  pause(automationId: string): Promise<Automation> {
    return refusalsAsClientErrors(() => this.automations.setEnabled(this.owner, automationId, false));
  }

  resume(automationId: string): Promise<Automation> {
    return refusalsAsClientErrors(() => this.automations.setEnabled(this.owner, automationId, true));
  }

  delete(automationId: string): Promise<{ automation_id: string; deleted: true }> {
    return refusalsAsClientErrors(() => this.automations.delete(this.owner, automationId));
  }

  /** Runs it now; the run is a new root session whose id is the run_id. */
  run(automationId: string): Promise<{ run_id: string; automation_id: string }> {
    return refusalsAsClientErrors(() => this.automations.runNow(this.owner, automationId));
  }

  getRun(runId: string): Promise<AutomationRun> {
    return refusalsAsClientErrors(() => this.automations.getRun(this.owner, runId));
  }

  /** Waits for a run to finish: timeoutMs 0 looks once, null waits without limit (default 60 seconds). */
  waitRun(runId: string, timeoutMs: number | null = 60_000): Promise<AutomationRun & { timed_out: boolean }> {
    return refusalsAsClientErrors(() => this.automations.waitRun(this.owner, runId, timeoutMs));
  }
}

async function refusalsAsClientErrors<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof AutomationError) throw new ArborClientError(error.message);
    throw error;
  }
}
