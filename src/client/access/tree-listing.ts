import type { Client } from '@temporalio/client';
import { parentSessionIdKey, rootSessionIdKey, titleKey } from '../../shared/search-attributes.js';
import { textFromAttribute } from '../../shared/text-attribute.js';
import { listingClient } from './listing-client.js';

/** A session of a tree as visibility lists it. */
export interface ListedSession {
  session_id: string;
  parent_session_id: string | null;
  title: string;
  /** Temporal's execution status name: RUNNING, CANCELLED, COMPLETED, ... */
  execution_status: string;
  close_time: number | undefined;
}

/**
 * Every session visibility lists in the tree of `rootId`, by id, from one listing (no query reaches a worker).
 * Undefined when visibility cannot answer: a server without Arbor's search attributes (the time-skipping test server).
 */
export async function listTree(client: Client, rootId: string): Promise<Map<string, ListedSession> | undefined> {
  const listed = new Map<string, ListedSession>();
  try {
    for await (const execution of listingClient(client).workflow.list({
      query: `${rootSessionIdKey.name} = '${escapeQueryValue(rootId)}'`,
    })) {
      listed.set(execution.workflowId, {
        session_id: execution.workflowId,
        parent_session_id: execution.typedSearchAttributes.get(parentSessionIdKey) ?? null,
        title: textFromAttribute(execution.typedSearchAttributes.get(titleKey) ?? execution.workflowId),
        execution_status: execution.status.name,
        close_time: execution.closeTime?.getTime(),
      });
    }
  } catch {
    return undefined;
  }
  return listed;
}

/** The listed sessions whose parent is each listed session, by parent id. */
export function listedChildren(listed: ReadonlyMap<string, ListedSession>): Map<string, ListedSession[]> {
  const children = new Map<string, ListedSession[]>();
  for (const session of listed.values()) {
    if (!session.parent_session_id) continue;
    const siblings = children.get(session.parent_session_id);
    if (siblings) siblings.push(session);
    else children.set(session.parent_session_id, [session]);
  }
  return children;
}

/**
 * The sessions at and below `targetId` in the tree of `rootId`, from one visibility listing. Undefined when visibility
 * does not list the target: a server without Arbor's search attributes or one that has not indexed it yet. Visibility
 * alone may miss members (one not indexed yet, or never: see walkSubtree, which asks each member for its children).
 */
export async function listSubtree(client: Client, rootId: string, targetId: string): Promise<ListedSession[] | undefined> {
  const listed = await listTree(client, rootId);
  const target = listed?.get(targetId);
  if (!listed || !target) return undefined;
  const children = listedChildren(listed);
  const found = [target];
  for (let index = 0; index < found.length; index++) found.push(...(children.get(found[index]!.session_id) ?? []));
  return found;
}

function escapeQueryValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
}
