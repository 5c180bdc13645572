import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { resolveHeaders, type McpServerConfig } from './config.js';

/**
 * `starting` (the first attempt), `ready`, `down` (it died or could not be reached; a restart is due) or `closed`
 * (the worker shut down). A server that never started is `down` with the reason.
 */
export type McpServerState = 'starting' | 'ready' | 'down' | 'closed';

/** Raised by a call to a server that is not ready: its message is what the model reads. */
export class McpServerUnavailable extends Error {
  override readonly name = 'McpServerUnavailable';
}

const defaults = { startupTimeoutMs: 20_000, restartInitialMs: 1_000, restartMaxMs: 30_000 };
/** A server that stayed up this long and then died is restarted after the first delay again. */
const stableAfterMs = 10_000;
const stderrTailChars = 2_000;

/**
 * One configured MCP server, through the official SDK's client: started (or connected) once, its tools listed and
 * kept up to date (`notifications/tools/list_changed`), restarted with doubling delays when it dies or cannot be
 * started, and closed with the worker (a stdio server's process is ended: the SDK closes its stdin, then signals it).
 */
export class McpServerConnection {
  state: McpServerState = 'starting';
  tools: Tool[] = [];
  /** Why the server is down (or why its last start failed). */
  problem: string | undefined;
  /** Restarts after it died or failed to start. */
  restarts = 0;
  private client: Client | undefined;
  private transport: Transport | undefined;
  private stderrTail = '';
  private failures = 0;
  private readyAt = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private generation = 0;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly onToolsChanged: () => void,
    private readonly log: (line: string) => void = () => {},
  ) {}

  get kind(): 'stdio' | 'http' {
    return 'url' in this.config ? 'http' : 'stdio';
  }

  /** The child process of a running stdio server. */
  get pid(): number | undefined {
    return this.transport instanceof StdioClientTransport ? (this.transport.pid ?? undefined) : undefined;
  }

  /** Starts the server; resolves once it is ready or has failed (then a restart is scheduled). */
  async start(): Promise<void> {
    const generation = ++this.generation;
    const transport = this.createTransport();
    const client = new Client(
      { name: 'arbor', version: '1' },
      {
        capabilities: {},
        listChanged: {
          tools: {
            debounceMs: 50,
            onChanged: (error, tools) => {
              if (error || !tools || generation !== this.generation) return;
              this.tools = tools;
              this.onToolsChanged();
            },
          },
        },
      },
    );
    let started = false;
    client.onclose = () => {
      // Before it started, the failed start says why.
      if (!started || generation !== this.generation || this.state === 'closed') return;
      this.becameDown(`it ${this.kind === 'stdio' ? 'exited' : 'closed the connection'}${this.stderrSuffix()}`);
    };
    this.client = client;
    this.transport = transport;
    const timeoutMs = this.config.startupTimeoutMs ?? defaults.startupTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        (async () => {
          await client.connect(transport);
          this.tools = await listAllTools(client);
        })(),
        new Promise((_resolve, reject) => {
          timer = setTimeout(() => reject(new Error(`it did not answer within ${timeoutMs / 1000} s`)), timeoutMs);
        }),
      ]);
    } catch (error) {
      if (generation !== this.generation || this.state === 'closed') return;
      const reason = error instanceof Error ? error.message : String(error);
      this.becameDown(`it could not be started: ${reason}${this.stderrSuffix()}`);
      return;
    } finally {
      clearTimeout(timer);
    }
    if (generation !== this.generation || this.state === 'closed') return;
    started = true;
    this.state = 'ready';
    this.problem = undefined;
    this.readyAt = Date.now();
    this.log(`MCP server ${this.name}: ready, ${this.tools.length} tools`);
    this.onToolsChanged();
  }

  /** Calls one of the server's tools; a server that is not ready throws McpServerUnavailable at once. */
  async callTool(tool: string, args: Record<string, unknown>, options: { signal: AbortSignal; timeoutMs: number; onProgress: () => void }) {
    const client = this.client;
    if (this.state !== 'ready' || !client) throw new McpServerUnavailable(this.unavailableReason());
    try {
      return (await client.callTool({ name: tool, arguments: args }, undefined, {
        signal: options.signal,
        timeout: options.timeoutMs,
        resetTimeoutOnProgress: true,
        onprogress: options.onProgress,
      })) as CallToolResult;
    } catch (error) {
      // The connection broke during the call (an HTTP server went away): say so, and reconnect.
      if (this.kind === 'http' && isConnectionFailure(error)) {
        this.becameDown(`the call could not reach it: ${error instanceof Error ? error.message : String(error)}`);
        throw new McpServerUnavailable(this.unavailableReason());
      }
      if (this.state !== 'ready') throw new McpServerUnavailable(this.unavailableReason());
      throw error;
    }
  }

  /** Ends the server (its process, for stdio) and any restart to come. */
  async close(): Promise<void> {
    this.state = 'closed';
    this.generation += 1;
    clearTimeout(this.restartTimer);
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
    await this.transport?.close().catch(() => undefined);
  }

  private unavailableReason(): string {
    if (this.state === 'closed') return `MCP server ${this.name} is closed: the worker is shutting down.`;
    if (this.state === 'starting') return `MCP server ${this.name} is still starting: try again in a moment.`;
    return `MCP server ${this.name} is down (${this.problem ?? 'unknown reason'}); the worker restarts it (restart ${this.restarts + 1} due shortly): try again in a moment.`;
  }

  private becameDown(problem: string): void {
    const wasStable = this.state === 'ready' && Date.now() - this.readyAt >= stableAfterMs;
    if (wasStable) this.failures = 0;
    this.state = 'down';
    this.problem = problem;
    const old = this.client;
    this.client = undefined;
    this.generation += 1;
    void old?.close().catch(() => undefined);
    const initial = this.config.restartDelayMs?.initial ?? defaults.restartInitialMs;
    const max = this.config.restartDelayMs?.max ?? defaults.restartMaxMs;
    const delay = Math.min(max, initial * 2 ** this.failures);
    this.failures += 1;
    this.log(`MCP server ${this.name}: down (${problem}); restarting in ${delay} ms`);
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => {
      this.restarts += 1;
      void this.start();
    }, delay);
    this.restartTimer.unref();
  }

  private createTransport(): Transport {
    this.stderrTail = '';
    if ('url' in this.config) {
      return new StreamableHTTPClientTransport(new URL(this.config.url), {
        requestInit: { headers: resolveHeaders(this.name, this.config.headers) },
      });
    }
    const transport = new StdioClientTransport({
      command: this.config.command,
      ...(this.config.args ? { args: this.config.args } : {}),
      env: { ...getDefaultEnvironment(), ...this.config.env },
      ...(this.config.cwd ? { cwd: this.config.cwd } : {}),
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-stderrTailChars);
    });
    return transport;
  }

  private stderrSuffix(): string {
    const lines = this.stderrTail.trim().split('\n').slice(-3).join(' | ');
    return lines ? ` (stderr: ${lines.slice(-500)})` : '';
  }
}

async function listAllTools(client: Client): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

function isConnectionFailure(error: unknown): boolean {
  const text = `${error instanceof Error ? error.message : String(error)} ${error instanceof Error && error.cause instanceof Error ? error.cause.message : ''}`;
  return /fetch failed|ECONNREFUSED|ECONNRESET|socket hang up|other side closed|Not connected/i.test(text);
}
