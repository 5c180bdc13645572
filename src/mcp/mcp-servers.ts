import type { HostToolEntry } from '../shared/host-tools.js';
import { isToolName } from '../shared/tools/registry.js';
import type { McpServersConfig } from './config.js';
import { McpServerConnection, type McpServerState } from './server-connection.js';
import { mcpNameSeparator, mcpToolEntries } from './tool-entries.js';

/** What `arbor doctor`, the worker and tests see of one server. */
export interface McpServerStatus {
  name: string;
  transport: 'stdio' | 'http';
  state: McpServerState;
  tool_count: number;
  /** Why it is down, or why its last start failed. */
  problem?: string;
  restarts: number;
  /** The child process of a running stdio server. */
  pid?: number;
}

/** The MCP servers of one worker: started together, their tools as catalogue entries, closed together. */
export class McpServers {
  private readonly connections: McpServerConnection[];
  private readonly listeners = new Set<() => void>();
  private entriesCache: HostToolEntry[] | undefined;

  private constructor(config: McpServersConfig, log: (line: string) => void) {
    this.connections = Object.entries(config).map(
      ([name, server]) => new McpServerConnection(name, server, () => this.toolsChanged(), log),
    );
  }

  /** Starts every server and waits for each to be ready or to have failed (those are retried in the background). */
  static async start(config: McpServersConfig, log: (line: string) => void = () => {}): Promise<McpServers> {
    const servers = new McpServers(config, log);
    await Promise.all(servers.connections.map((connection) => connection.start()));
    return servers;
  }

  /**
   * The servers' tools as catalogue entries, server by server in configuration order. A tool whose name another
   * tool (Arbor's, or one of `reserved`, the worker's own host tools) already has is left out.
   */
  entries(reserved: ReadonlySet<string> = new Set()): HostToolEntry[] {
    if (!this.entriesCache) {
      const taken = new Set(reserved);
      this.entriesCache = this.connections
        .flatMap((connection) => mcpToolEntries(connection.name, connection.config, connection.tools, taken))
        .filter((entry) => !isToolName(entry.name) && !reserved.has(entry.name));
    }
    return this.entriesCache;
  }

  /** Called whenever a server's list of tools changes (it started, or said `notifications/tools/list_changed`). */
  onToolsChanged(listener: () => void): void {
    this.listeners.add(listener);
  }

  /** The server and tool a catalogue name stands for: by the current catalogue, else by its `<server>__` prefix. */
  resolve(name: string): { connection: McpServerConnection; tool: string } | undefined {
    const entry = this.entriesCache?.find((candidate) => candidate.name === name);
    if (entry?.mcp) {
      const connection = this.connections.find((candidate) => candidate.name === entry.mcp!.server);
      if (connection) return { connection, tool: entry.mcp.tool };
    }
    const connection = this.connections.find((candidate) => name.startsWith(`${candidate.name}${mcpNameSeparator}`));
    return connection ? { connection, tool: name.slice(connection.name.length + mcpNameSeparator.length) } : undefined;
  }

  /** The servers that have listed no tools yet and may still: starting, or down and retried in the background. */
  pending(): string[] {
    return this.connections
      .filter((connection) => connection.state !== 'ready' && connection.state !== 'closed' && connection.tools.length === 0)
      .map((connection) => connection.name);
  }

  status(): McpServerStatus[] {
    return this.connections.map((connection) => ({
      name: connection.name,
      transport: connection.kind,
      state: connection.state,
      tool_count: connection.tools.length,
      ...(connection.problem ? { problem: connection.problem } : {}),
      restarts: connection.restarts,
      ...(connection.pid !== undefined ? { pid: connection.pid } : {}),
    }));
  }

  /** Closes every server: stdio servers' processes end (the SDK closes their stdin, then signals them). */
  async close(): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.close()));
  }

  private toolsChanged(): void {
    this.entriesCache = undefined;
    for (const listener of this.listeners) listener();
  }
}
