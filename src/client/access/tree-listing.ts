import type { Client } from '@temporalio/client';
import { parentSessionIdKey, rootSessionIdKey, titleKey } from '../../shared/search-attributes.js';
import { textFromAttribute } from '../../shared/text-attribute.js';

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
 * The sessions at and below `targetId` in the tree of `rootId`, from one visibility listing (no query reaches a
 * worker). Undefined when visibility does not list the target: a server without Arbor's search attributes (the
 * time-skipping test server) or one that has not indexed it yet. The caller then walks the tree by queries.
 */
export async function listSubtree(client: Client, rootId: string, targetId: string): Promise<ListedSession[] | undefined> {
  const listed = new Map<string, ListedSession>();
  try {
    for await (const execution of client.workflow.list({ query: `${rootSessionIdKey.name} = '${escapeQueryValue(rootId)}'` })) {
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
  const target = listed.get(targetId);
  if (!target) return undefined;
  const children = new Map<string, ListedSession[]>();
  for (const session of listed.values()) {
    if (!session.parent_session_id) continue;
    const siblings = children.get(session.parent_session_id);
    if (siblings) siblings.push(session);
    else children.set(session.parent_session_id, [session]);
  }
  const found = [target];
  for (let index = 0; index < found.length; index++) found.push(...(children.get(found[index]!.session_id) ?? []));
  return found;
}

function escapeQueryValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
}
