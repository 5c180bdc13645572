import { McpConfigError, mcpServersFromEnv, type McpServersConfig } from './config.js';
import type { McpServerStatus } from './mcp-servers.js';

/** What `arbor doctor` says of the MCP servers of ARBOR_MCP_SERVERS. */
export type McpProbe = { servers: McpServerStatus[] } | { problem: string };

/**
 * Starts each configured server once (as a worker would), lists its tools and closes it again: its state is what a
 * worker started now would find. A bad configuration is reported, not thrown.
 */
export async function probeMcpServers(env: NodeJS.ProcessEnv = process.env, startupTimeoutMs = 10_000): Promise<McpProbe> {
  let config: McpServersConfig;
  try {
    config = mcpServersFromEnv(env);
  } catch (error) {
    if (error instanceof McpConfigError) return { problem: error.message };
    throw error;
  }
  const bounded = Object.fromEntries(
    Object.entries(config).map(([name, server]) => [
      name,
      { ...server, startupTimeoutMs: Math.min(server.startupTimeoutMs ?? startupTimeoutMs, startupTimeoutMs) },
    ]),
  );
  // Loaded here: the MCP SDK is a large part of the CLI's start-up, and only a configured server needs it.
  const { McpServers } = await import('./mcp-servers.js');
  const servers = await McpServers.start(bounded);
  const status = servers.status().map(({ pid: _pid, ...rest }) => rest);
  await servers.close();
  return { servers: status };
}

/** The doctor's lines about the MCP servers. */
export function describeMcpProbe(probe: McpProbe): string[] {
  if ('problem' in probe) return [`MCP servers: ${probe.problem}`];
  if (probe.servers.length === 0) return ['MCP servers: none configured (ARBOR_MCP_SERVERS)'];
  return probe.servers.map(
    (server) =>
      `MCP server ${server.name} (${server.transport}): ${server.state}, ${server.tool_count} tool${server.tool_count === 1 ? '' : 's'}${server.problem ? `: ${server.problem}` : ''}`,
  );
}
