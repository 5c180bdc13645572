import { Command } from 'commander';
import { checkSessionId } from '../../client/session-id.js';
import type { SessionTreeNode } from '../../client/access/session-tree.js';
import { createOutput } from '../output.js';
import { connectionSettingsFrom, withConnectionFlags, type ConnectionFlags } from '../options.js';
import { withClient } from '../with-client.js';

interface TreeFlags extends ConnectionFlags {
  json?: boolean;
}

export const treeCommand = withConnectionFlags(
  new Command('tree')
    .description('print a session and its sub-agents at every depth, with id, title, status and mode')
    .argument('<session-id>', 'the session id (a UUID)', checkSessionId)
    .option('--json', 'print one JSON object'),
).action(async (sessionId: string, flags: TreeFlags) => {
  const output = createOutput(Boolean(flags.json));
  await withClient(connectionSettingsFrom(flags), async (client) => {
    const tree = await client.session(sessionId).tree();
    output.result(tree, renderTree(tree).join('\n'));
  });
});

function renderTree(node: SessionTreeNode, prefix = '', last = true, root = true): string[] {
  const label = `${node.title}  [${node.status}${node.mode ? `, ${node.mode}` : ''}]  ${node.session_id}`;
  const lines = [root ? label : `${prefix}${last ? '└─ ' : '├─ '}${label}`];
  const childPrefix = root ? '' : `${prefix}${last ? '   ' : '│  '}`;
  node.children.forEach((child, index) => lines.push(...renderTree(child, childPrefix, index === node.children.length - 1, false)));
  return lines;
}
