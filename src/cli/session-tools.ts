import { QueryNotRegisteredError, type Client } from '@temporalio/client';
import type { HostToolApproval } from '../shared/host-tools.js';
import { hostToolCatalogueQuery, sessionToolsQuery, type SessionToolsAnswer } from '../shared/messages.js';
import { findTool, toolNames } from '../shared/tools/registry.js';

/** One tool a session may call, as `arbor tools` lists it. */
export interface SessionToolRow {
  name: string;
  /** Arbor's own, a host tool of the worker, a remote tool (another worker's queue), or an MCP server's. */
  source: 'built-in' | 'host' | 'remote' | 'mcp';
  /** For an MCP tool: its server and its name there. */
  mcp?: { server: string; tool: string };
  needs_approval: HostToolApproval;
  /** A session in Plan mode does not run it. */
  destructive: boolean;
  /** ToolSearch: a host tool kept out of the model's requests until ToolSearch loads it (`deferred`), or loaded; null: sent as usual. */
  deferral: 'deferred' | 'loaded' | null;
}

/** The tools a session's current run may call, built-in first, then its catalogue's in order. */
export async function readSessionTools(client: Client, sessionId: string): Promise<SessionToolRow[]> {
  const handle = client.workflow.getHandle(sessionId);
  let answer: SessionToolsAnswer;
  try {
    answer = await handle.query(sessionToolsQuery);
  } catch (error) {
    if (!(error instanceof QueryNotRegisteredError)) throw error;
    // A run from before the query: every tool its deployment serves, as a session given no `tools` has them.
    const host_tools = await handle.query(hostToolCatalogueQuery);
    answer = { tool_names: [...toolNames, ...(host_tools?.tools.map((tool) => tool.name) ?? [])], host_tools };
  }
  const catalogue = new Map(answer.host_tools?.tools.map((tool) => [tool.name, tool]));
  // Present while the session's host tools are deferred behind ToolSearch: all of them are, less those it has loaded.
  const search = answer.tools;
  const loaded = new Set(search?.loaded);
  return answer.tool_names.map((name): SessionToolRow => {
    const builtIn = findTool(name);
    if (builtIn) return { name, source: 'built-in', needs_approval: false, destructive: builtIn.destructive, deferral: null };
    const entry = catalogue.get(name);
    return {
      name,
      source: entry?.mcp ? 'mcp' : entry?.remote ? 'remote' : 'host',
      ...(entry?.mcp ? { mcp: entry.mcp } : {}),
      needs_approval: entry?.needs_approval ?? false,
      destructive: entry?.destructive === true,
      deferral: search ? (loaded.has(name) ? 'loaded' : 'deferred') : null,
    };
  });
}

/** The rows as a table: name, source (with the MCP server and tool), approval, destructive, and ToolSearch's state once known. */
export function renderSessionTools(rows: readonly SessionToolRow[]): string {
  const deferral = rows.some((row) => row.deferral !== null);
  const table = [
    ['TOOL', 'SOURCE', 'APPROVAL', 'DESTRUCTIVE', ...(deferral ? ['SEARCH'] : [])],
    ...rows.map((row) => [
      row.name,
      row.mcp ? `mcp ${row.mcp.server}/${row.mcp.tool}` : row.source,
      row.needs_approval === 'by_arguments' ? 'by arguments' : row.needs_approval ? 'asks' : '-',
      row.destructive ? 'yes' : '-',
      ...(deferral ? [row.deferral ?? '-'] : []),
    ]),
  ];
  const widths = table[0]!.map((_, column) => Math.max(...table.map((line) => line[column]!.length)));
  return table
    .map((line) =>
      line
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
