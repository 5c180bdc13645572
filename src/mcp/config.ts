import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/** An MCP server's configuration that cannot work: it says which server and why. The worker does not start. */
export class McpConfigError extends Error {
  override readonly name = 'McpConfigError';
}

/** What the worker's configuration says of one MCP tool, over what the server's annotations say. */
export interface McpToolSettings {
  /** Whether a call needs the user's approval (default: the server's `needsApproval`, unless the tool is read-only). */
  needsApproval?: boolean;
  /** Whether a call changes the world (default: the tool's `destructiveHint`, unless it is read-only). */
  destructive?: boolean;
}

interface McpServerCommon {
  /** Every call of this server's tools needs approval, except those the server annotates `readOnlyHint` (default false). */
  needsApproval?: boolean;
  /** Settings by the server's own tool names. */
  tools?: Record<string, McpToolSettings>;
  /** How long one call may run, in milliseconds (default 5 minutes). */
  callTimeoutMs?: number;
  /** How long starting (or connecting) and listing the tools may take, in milliseconds (default 20 seconds). */
  startupTimeoutMs?: number;
  /** Delays before a server that died (or never started) is started again: doubling from the first to the last (default 1 s to 30 s). */
  restartDelayMs?: { initial?: number; max?: number };
}

/** A server the worker starts as a child process and talks to over its stdin and stdout. */
export interface McpStdioServerConfig extends McpServerCommon {
  command: string;
  args?: string[];
  /** Added to the few variables the SDK passes on by default (HOME, PATH, USER...): the worker's other variables are not. */
  env?: Record<string, string>;
  cwd?: string;
}

/** A server reached over Streamable HTTP. */
export interface McpHttpServerConfig extends McpServerCommon {
  url: string;
  /** Request headers; `${NAME}` in a value is the worker's environment variable NAME (never anything from history). */
  headers?: Record<string, string>;
}

export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/** MCP servers by name: the name prefixes their tools' names (`<server>__<tool>`). */
export type McpServersConfig = Record<string, McpServerConfig>;

/** A server name: it starts every tool name of the server, which the OpenAI API limits to 64 such characters. */
export const mcpServerNamePattern = /^[a-zA-Z0-9_-]{1,32}$/;

const milliseconds = z.number().int().positive();
const common = {
  needsApproval: z.boolean().optional(),
  tools: z.record(z.string(), z.strictObject({ needsApproval: z.boolean().optional(), destructive: z.boolean().optional() })).optional(),
  callTimeoutMs: milliseconds.optional(),
  startupTimeoutMs: milliseconds.optional(),
  restartDelayMs: z.strictObject({ initial: milliseconds.optional(), max: milliseconds.optional() }).optional(),
};
const stdioSchema = z.strictObject({
  ...common,
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().min(1).optional(),
});
const httpSchema = z.strictObject({
  ...common,
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string(), z.string()).optional(),
});
const serverSchema = z.union([stdioSchema, httpSchema], { error: 'a server has either `command` (stdio) or `url` (Streamable HTTP)' });

/**
 * Checks MCP server configurations (from code or from ARBOR_MCP_SERVERS): a bad name, a server with neither a
 * command nor a URL, an unknown field or a header naming an unset variable is an McpConfigError naming the server.
 */
export function checkMcpServers(servers: unknown, env: NodeJS.ProcessEnv = process.env): McpServersConfig {
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) {
    throw new McpConfigError('MCP servers are an object of server configurations by name: { "name": { "command": ... } }.');
  }
  const checked: McpServersConfig = {};
  for (const [name, config] of Object.entries(servers)) {
    if (!mcpServerNamePattern.test(name)) {
      throw new McpConfigError(`MCP server "${name}": a server name must be 1-32 letters, digits, underscores or hyphens.`);
    }
    const parsed = serverSchema.safeParse(config);
    if (!parsed.success) throw new McpConfigError(`MCP server "${name}": ${z.prettifyError(parsed.error)}`);
    if ('url' in parsed.data) resolveHeaders(name, parsed.data.headers, env);
    checked[name] = parsed.data;
  }
  return checked;
}

/** The headers of an HTTP server, each `${NAME}` replaced by the worker's environment variable. */
export function resolveHeaders(server: string, headers: Record<string, string> | undefined, env: NodeJS.ProcessEnv = process.env) {
  const resolved: Record<string, string> = {};
  for (const [header, value] of Object.entries(headers ?? {})) {
    resolved[header] = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, variable: string) => {
      const found = env[variable];
      if (found === undefined) throw new McpConfigError(`MCP server "${server}": header ${header} names ${variable}, which is not set.`);
      return found;
    });
  }
  return resolved;
}

/**
 * The MCP servers of ARBOR_MCP_SERVERS: inline JSON (starting with `{`), or the path of a JSON or YAML file; either
 * the servers by name or, as other MCP clients' files have it, an object whose `mcpServers` field holds them. Unset: none.
 */
export function mcpServersFromEnv(env: NodeJS.ProcessEnv = process.env): McpServersConfig {
  const value = env.ARBOR_MCP_SERVERS?.trim();
  if (!value) return {};
  let text = value;
  if (!value.startsWith('{')) {
    try {
      text = readFileSync(value, 'utf8');
    } catch (error) {
      throw new McpConfigError(`ARBOR_MCP_SERVERS: cannot read ${value} (${error instanceof Error ? error.message : String(error)}).`);
    }
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (error) {
    throw new McpConfigError(`ARBOR_MCP_SERVERS: not JSON or YAML (${error instanceof Error ? error.message : String(error)}).`);
  }
  const servers = parsed && typeof parsed === 'object' && 'mcpServers' in parsed ? (parsed as { mcpServers: unknown }).mcpServers : parsed;
  return checkMcpServers(servers ?? {}, env);
}
