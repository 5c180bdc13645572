import { createHash } from 'node:crypto';
import { msToNumber } from '@temporalio/common/lib/time.js';
import { z } from 'zod';
import { hostToolNamePattern, type HostToolCatalogue, type HostToolEntry } from '../shared/host-tools.js';
import { isToolName } from '../shared/tools/registry.js';
import { isToolDefinition, type ToolDefinition, type ToolOptions } from './define.js';

/** A tool definition a worker cannot serve: it says which tool and why. The worker does not start. */
export class ToolDefinitionError extends Error {
  override readonly name = 'ToolDefinitionError';
}

export const toolDefaults = {
  startToCloseTimeoutMs: 5 * 60_000,
  scheduleToStartTimeoutMs: 60_000,
  /** Host tools only: the wrapper heartbeats while the handler runs. */
  heartbeatTimeoutMs: 10_000,
  retry: { maximum_attempts: 3, initial_interval_ms: 1_000, backoff_coefficient: 2, maximum_interval_ms: 30_000 },
} as const;

/**
 * Checks a worker's tool definitions and describes them as the catalogue sessions record: a name that is not a valid
 * OpenAI function name, collides with a built-in tool or is defined twice, a schema that is not an object schema, or
 * an option that is not a duration stops here with a ToolDefinitionError.
 */
export function buildCatalogue(tools: readonly unknown[]): HostToolCatalogue {
  const seen = new Set<string>();
  const entries = tools.map((tool, index) => {
    if (!isToolDefinition(tool)) {
      throw new ToolDefinitionError(`tools[${index}] is not a tool definition: make it with defineHostTool() or defineRemoteTool().`);
    }
    const name = String(tool.name);
    if (!hostToolNamePattern.test(name)) {
      throw new ToolDefinitionError(
        `Tool "${name}": a tool name must be 1-64 letters, digits, underscores or hyphens (the OpenAI API's rule for function names).`,
      );
    }
    if (isToolName(name)) throw new ToolDefinitionError(`Tool "${name}": the name is taken by one of Arbor's built-in tools.`);
    if (seen.has(name)) throw new ToolDefinitionError(`Tool "${name}" is defined twice: each tool needs a name of its own.`);
    seen.add(name);
    return describeTool(tool);
  });
  const bytes = Buffer.byteLength(JSON.stringify(entries));
  if (bytes > maxCatalogueBytes) {
    throw new ToolDefinitionError(
      `The tools' catalogue takes ${bytes.toLocaleString('en-US')} bytes of JSON, more than the ${maxCatalogueBytes.toLocaleString('en-US')} a session records ` +
        '(it is in the history of every session and sub-agent start): shorten descriptions and schemas, or serve fewer tools.',
    );
  }
  return { digest: catalogueDigest(entries), tools: entries };
}

/**
 * The most bytes a catalogue may take: it is recorded as each session starts, handed to each sub-agent and carried
 * across continue-as-new, inside Temporal's 2 MB payload limit (200 tools of about 1 KB each fit).
 */
export const maxCatalogueBytes = 512 * 1024;

function describeTool(tool: ToolDefinition): HostToolEntry {
  const fail = (why: string) => new ToolDefinitionError(`Tool "${tool.name}": ${why}`);
  if (typeof tool.description !== 'string' || tool.description.trim() === '') throw fail('it needs a description, which the model reads.');
  let parameters: Record<string, unknown>;
  if (tool.kind === 'arbor-host-tool') {
    if (typeof tool.run !== 'function') throw fail('a host tool needs a run(args, context) function.');
    if (!(tool.input instanceof z.ZodType)) throw fail('input must be a zod schema (z.object({...})).');
    try {
      const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.input, { io: 'input' }) as Record<string, unknown>;
      parameters = schema;
    } catch (error) {
      throw fail(`its input schema has no JSON schema (${error instanceof Error ? error.message : String(error)}).`);
    }
  } else {
    if (typeof tool.taskQueue !== 'string' || tool.taskQueue.trim() === '')
      throw fail('a remote tool needs the taskQueue its worker polls.');
    parameters = tool.parameters;
  }
  if (typeof parameters !== 'object' || parameters === null || parameters.type !== 'object') {
    throw fail('its arguments must be described by an object schema (type "object"), as the OpenAI API asks of function parameters.');
  }
  const options = readOptions(tool, fail);
  const needsApproval = tool.needsApproval;
  return {
    name: tool.name,
    description: tool.description,
    parameters,
    ...(tool.taskQueue ? { task_queue: tool.taskQueue } : {}),
    needs_approval: typeof needsApproval === 'function' ? 'by_arguments' : needsApproval === true,
    remote: tool.kind === 'arbor-remote-tool',
    // Only when set, so the catalogues (and digests) of tools without it stay as they were.
    ...(tool.destructive === true ? { destructive: true as const } : {}),
    ...options,
  };
}

function readOptions(tool: ToolDefinition, fail: (why: string) => ToolDefinitionError) {
  const duration = (name: string, value: ToolOptions['startToCloseTimeout'], fallback: number | undefined) => {
    if (value === undefined) return fallback;
    let ms: number;
    try {
      ms = msToNumber(value);
    } catch {
      throw fail(`${name} "${String(value)}" is not a duration (milliseconds, or text such as "30 seconds").`);
    }
    if (!Number.isFinite(ms) || ms <= 0) throw fail(`${name} must be a positive duration, got ${String(value)}.`);
    return ms;
  };
  const retry = tool.retry ?? {};
  const attempts = retry.maximumAttempts ?? toolDefaults.retry.maximum_attempts;
  if (!Number.isInteger(attempts) || attempts < 1)
    throw fail(`retry.maximumAttempts must be a whole number of at least 1, got ${attempts}.`);
  const coefficient = retry.backoffCoefficient ?? toolDefaults.retry.backoff_coefficient;
  if (!(coefficient >= 1)) throw fail(`retry.backoffCoefficient must be at least 1, got ${coefficient}.`);
  const heartbeat = duration(
    'heartbeatTimeout',
    tool.heartbeatTimeout,
    tool.kind === 'arbor-host-tool' ? toolDefaults.heartbeatTimeoutMs : undefined,
  );
  return {
    start_to_close_timeout_ms: duration('startToCloseTimeout', tool.startToCloseTimeout, toolDefaults.startToCloseTimeoutMs)!,
    schedule_to_start_timeout_ms: duration('scheduleToStartTimeout', tool.scheduleToStartTimeout, toolDefaults.scheduleToStartTimeoutMs)!,
    ...(heartbeat !== undefined ? { heartbeat_timeout_ms: heartbeat } : {}),
    retry: {
      maximum_attempts: attempts,
      initial_interval_ms: duration('retry.initialInterval', retry.initialInterval, toolDefaults.retry.initial_interval_ms)!,
      backoff_coefficient: coefficient,
      maximum_interval_ms: duration('retry.maximumInterval', retry.maximumInterval, toolDefaults.retry.maximum_interval_ms)!,
    },
  };
}

/** Names one exact catalogue: the same tools with the same schemas and options give the same digest on every worker. */
export function catalogueDigest(tools: readonly HostToolEntry[]): string {
  return createHash('sha256').update(canonicalJson(tools)).digest('hex').slice(0, 32);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
