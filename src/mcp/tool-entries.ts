import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { hostToolNamePattern, type HostToolEntry } from '../shared/host-tools.js';
import { toolDefaults } from '../tools/catalogue.js';
import type { McpServerConfig } from './config.js';

/** Between a server's name and its tool's in a catalogue name. */
export const mcpNameSeparator = '__';

/**
 * The catalogue name of an MCP tool: `<server>__<tool>`, with characters the OpenAI API refuses in a function name
 * made underscores and, past 64 characters (or when that made two names alike), cut short and ended by a hash.
 */
export function mcpToolName(server: string, tool: string, taken: ReadonlySet<string> = new Set()): string {
  const plain = `${server}${mcpNameSeparator}${tool.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
  if (hostToolNamePattern.test(plain) && !taken.has(plain)) return plain;
  const hash = createHash('sha256').update(tool).digest('hex').slice(0, 8);
  return `${plain.slice(0, 64 - hash.length - 1)}_${hash}`;
}

/**
 * One server's tools as catalogue entries, in the server's order: the server's JSON schema and description, approval
 * and `destructive` from the worker's settings, else from the tool's annotations (`readOnlyHint`: no approval and not
 * destructive; `destructiveHint`: destructive). Calls of read-only or idempotent tools are retried as host tools'
 * are; others run once, since a call cut short may have had its effect.
 */
export function mcpToolEntries(server: string, config: McpServerConfig, tools: readonly Tool[], taken: Set<string>): HostToolEntry[] {
  return tools.map((tool) => {
    const name = mcpToolName(server, tool.name, taken);
    taken.add(name);
    const settings = config.tools?.[tool.name] ?? {};
    const readOnly = tool.annotations?.readOnlyHint === true;
    const destructive = settings.destructive ?? (tool.annotations?.destructiveHint === true && !readOnly);
    const needsApproval = settings.needsApproval ?? (config.needsApproval === true && !readOnly);
    const retried = readOnly || tool.annotations?.idempotentHint === true;
    const { $schema: _ignored, ...parameters } = tool.inputSchema as Record<string, unknown>;
    const description =
      tool.description?.trim() || tool.title || tool.annotations?.title || `The tool ${tool.name} of MCP server ${server}.`;
    return {
      name,
      description,
      parameters: { ...parameters, type: 'object' },
      needs_approval: needsApproval,
      remote: false,
      ...(destructive ? { destructive: true as const } : {}),
      mcp: { server, tool: tool.name },
      start_to_close_timeout_ms: config.callTimeoutMs ?? toolDefaults.startToCloseTimeoutMs,
      schedule_to_start_timeout_ms: toolDefaults.scheduleToStartTimeoutMs,
      heartbeat_timeout_ms: toolDefaults.heartbeatTimeoutMs,
      retry: { ...toolDefaults.retry, maximum_attempts: retried ? toolDefaults.retry.maximum_attempts : 1 },
    };
  });
}
