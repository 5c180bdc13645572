import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { createSessionTree } from '../client/access/session-tree.js';

/** The sub-agent tools' activities: the session tree operations, heartbeating while a stop waits. */
export function createSessionTreeActivities(client: Client) {
  const { tree: _tree, ...operations } = createSessionTree(client, () => Context.current().heartbeat());
  return operations;
}
