import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { z } from 'zod';
import { ArborClientError } from './errors.js';
import { sessionStatuses } from '../shared/session.js';
import { sessionWorkflowTypes } from './session-id.js';
import { costUsdKey, parentSessionIdKey, statusKey, titleKey, totalTokensKey } from '../shared/search-attributes.js';
import { textFromAttribute } from '../shared/text-attribute.js';
import { ownerSchema } from '../shared/tools/memory.js';
import { isUnreadable } from '../codec/listing-codec.js';
import { listingClient } from './access/listing-client.js';

/** The memo key naming a session's owner; the SDK sets it when it starts a session (schedules use the same key). */
export const sessionOwnerMemoKey = 'arbor_owner';
const automationMemoKey = 'arbor_automation';

/**
 * A listed session's status: the session's own statuses, and for a workflow closed by something other than itself
 * (`temporal workflow terminate`, a timeout) `terminated` or `timed_out`.
 */
export const listedSessionStatuses = [...sessionStatuses, 'terminated', 'timed_out'] as const;
export type ListedSessionStatus = (typeof listedSessionStatuses)[number];

export interface ListSessionsOptions {
  /** Only sessions with this status. */
  status?: ListedSessionStatus;
  /** Only sessions of this owner (sessions started by other clients name no owner and are left out). */
  owner?: string;
  /** Only sessions whose title contains this text (any case). */
  title?: string;
  /** Only sessions whose workflows run on this task queue. */
  taskQueue?: string;
  /** At most this many (default 20). */
  limit?: number;
}

/** A root session as visibility lists it. */
export interface SessionSummary {
  session_id: string;
  title: string;
  status: ListedSessionStatus;
  /** The owner the session was started for, or null when its starter did not say (another client than the SDK). */
  owner: string | null;
  started_at: string;
  /** When it closed, or null while it runs. */
  closed_at: string | null;
  /** When it was last seen doing something visibility records: its close, else its start. */
  last_activity_at: string;
  /**
   * Present when the session's memo is encrypted with a key this client does not hold (ARBOR_ENCRYPTION_KEYS): its
   * owner is then unknown (null), and its title is what visibility shows (the neutral one where titles are neutral).
   */
  encrypted?: true;
  /** The tokens its whole tree has used, as of its last turn; absent before its first call that reported usage. */
  total_tokens?: number;
  /** What its whole tree cost in US dollars, as of its last turn; absent while no call had a price. */
  cost_usd?: number;
}

const listOptionsSchema = z.object({
  status: z.enum(listedSessionStatuses).optional(),
  owner: ownerSchema().optional(),
  title: z.string().optional(),
  taskQueue: z.string().min(1).optional(),
  limit: z.number().int().positive().max(1000).optional(),
});

export const defaultListLimit = 20;

/**
 * The root sessions visible to `client`, newest activity first, from Temporal visibility alone (no worker needed).
 * A closed workflow's execution status wins over its `ArborStatus` attribute, which a completed session may leave
 * at `running`: Temporal records a session's close, not the session.
 */
export async function listSessions(client: Client, options: ListSessionsOptions = {}): Promise<SessionSummary[]> {
  const parsed = listOptionsSchema.safeParse(options);
  if (!parsed.success) throw new ArborClientError(`Invalid list options: ${z.prettifyError(parsed.error)}`);
  const { status, owner, title, taskQueue, limit = defaultListLimit } = parsed.data;
  const clauses = [
    `WorkflowType IN (${sessionWorkflowTypes.map((type) => `'${type}'`).join(', ')})`,
    `${parentSessionIdKey.name} IS NULL`,
    `ExecutionStatus != 'ContinuedAsNew'`,
  ];
  if (taskQueue) clauses.push(`TaskQueue = '${taskQueue.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`);
  if (status && (status === 'running' || status === 'idle' || status === 'waiting_for_user')) clauses.push(`ExecutionStatus = 'Running'`);
  const titleNeedle = title?.trim().toLowerCase();
  const found: SessionSummary[] = [];
  try {
    for await (const execution of listingClient(client).workflow.list({ query: clauses.join(' AND ') })) {
      const summary = summarize(execution);
      if (status && summary.status !== status) continue;
      if (owner && summary.owner !== owner) continue;
      if (titleNeedle && !summary.title.toLowerCase().includes(titleNeedle)) continue;
      found.push(summary);
      if (found.length >= limit) break;
    }
  } catch (error) {
    if (error instanceof ArborClientError) throw error;
    throw new ArborClientError(`Cannot list sessions: ${(error as Error).message}`, { cause: error });
  }
  return found.sort((a, b) => b.last_activity_at.localeCompare(a.last_activity_at));
}

/** A workflow's status as a session's: a closed execution's own status, else the `ArborStatus` the session shows. */
export function listedStatus(executionStatus: string, arborStatus: string | undefined): ListedSessionStatus {
  switch (executionStatus) {
    case 'RUNNING':
      return (sessionStatuses as readonly string[]).includes(arborStatus ?? '') && arborStatus !== 'completed' && arborStatus !== 'stopped'
        ? (arborStatus as ListedSessionStatus)
        : 'idle';
    case 'COMPLETED':
      // A session that fails returns normally (Temporal records Completed) and writes `failed` first.
      return arborStatus === 'failed' ? 'failed' : 'completed';
    case 'CANCELLED':
      return 'stopped';
    case 'FAILED':
      return 'failed';
    case 'TIMED_OUT':
      return 'timed_out';
    default:
      return 'terminated';
  }
}

function summarize(execution: WorkflowExecutionInfo): SessionSummary {
  // An automation's runs carry the automation's settings, its owner among them.
  const automation = execution.memo?.[automationMemoKey] as { owner?: unknown } | undefined;
  const memoOwner = execution.memo?.[sessionOwnerMemoKey] ?? automation?.owner;
  const encrypted = Object.values(execution.memo ?? {}).some(isUnreadable);
  const startedAt = execution.startTime.toISOString();
  const closedAt = execution.closeTime?.toISOString() ?? null;
  const totalTokens = execution.typedSearchAttributes.get(totalTokensKey);
  const costUsd = execution.typedSearchAttributes.get(costUsdKey);
  return {
    session_id: execution.workflowId,
    title: textFromAttribute(execution.typedSearchAttributes.get(titleKey) ?? execution.workflowId),
    status: listedStatus(execution.status.name, execution.typedSearchAttributes.get(statusKey)),
    owner: typeof memoOwner === 'string' ? memoOwner : null,
    started_at: startedAt,
    closed_at: closedAt,
    last_activity_at: closedAt ?? startedAt,
    ...(encrypted ? { encrypted: true as const } : {}),
    ...(typeof totalTokens === 'number' ? { total_tokens: totalTokens } : {}),
    ...(typeof costUsd === 'number' ? { cost_usd: costUsd } : {}),
  };
}
