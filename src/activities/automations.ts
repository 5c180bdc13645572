import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { AutomationError, createAutomations } from '../client/access/automations.js';
import type { ToolReply } from '../shared/tool-reply.js';
import type { AutomationCreateArgs, AutomationUpdateArgs } from '../shared/tools/automations.js';
import type { ProfileName } from '../shared/tools/profiles/names.js';

export type AutomationOperation =
  | { op: 'create'; args: AutomationCreateArgs; profile?: ProfileName }
  | { op: 'update'; args: AutomationUpdateArgs }
  | { op: 'run_enqueue'; automation_id: string }
  | { op: 'run_get'; run_id: string }
  | { op: 'run_wait'; run_id: string; timeout_ms: number | null };

export interface AutomationCall {
  owner: string;
  operation: AutomationOperation;
  call_key?: string;
  /** The calling session shows neutral titles: so do the automations it creates. */
  neutral_titles?: true;
}

/** The automation tools' activity: schedules and runs on the worker's own task queue, for the calling session's owner. */
export function createAutomationActivities(client: Client) {
  return {
    /** `call_key` is fixed per tool call (absent in calls scheduled before it was), so a retried create makes one automation. */
    async automationCall({ owner, operation, call_key, neutral_titles }: AutomationCall): Promise<ToolReply<unknown>> {
      const automations = createAutomations(client, Context.current().info.taskQueue, { neutralTitles: neutral_titles === true });
      try {
        switch (operation.op) {
          case 'create':
            return {
              ok: true,
              result: await automations.create(
                owner,
                { ...operation.args, ...(operation.profile ? { profile: operation.profile } : {}) },
                call_key,
              ),
            };
          case 'update':
            return { ok: true, result: await automations.update(owner, operation.args) };
          case 'run_enqueue':
            return { ok: true, result: await automations.runNow(owner, operation.automation_id) };
          case 'run_get':
            return { ok: true, result: await automations.getRun(owner, operation.run_id) };
          case 'run_wait':
            return {
              ok: true,
              result: await automations.waitRun(owner, operation.run_id, operation.timeout_ms, () => Context.current().heartbeat()),
            };
        }
      } catch (error) {
        if (error instanceof AutomationError) return { ok: false, error: error.message };
        throw error;
      }
    },
  };
}
