import { ApplicationFailure, Context } from '@temporalio/activity';
import { msToNumber } from '@temporalio/common/lib/time.js';
import { z } from 'zod';
import {
  hostToolActivityType,
  invalidToolArguments,
  maxToolResultLength,
  toolResultTooLarge,
  hostToolNeedsApprovalActivity,
  type HostToolActivityInput,
  type HostToolApprovalCheck,
} from '../shared/host-tools.js';
import type { HostTool, HostToolContext, ToolDefinition } from './define.js';
import { toolDefaults } from './catalogue.js';

type ToolActivity = (input: HostToolActivityInput) => Promise<unknown>;

/**
 * The activities that run a worker's host tools, one `tool:<name>` per tool, grouped by the task queue they are served
 * on; the session's queue also gets the local activity that asks a tool's `needsApproval` function about a call.
 */
export function hostToolActivities(
  tools: readonly ToolDefinition[],
  defaultTaskQueue: string,
): Map<string, Record<string, (input: never) => Promise<unknown>>> {
  const queues = new Map<string, Record<string, (input: never) => Promise<unknown>>>();
  queues.set(defaultTaskQueue, { [hostToolNeedsApprovalActivity]: needsApprovalActivity(tools) });
  for (const tool of tools) {
    if (tool.kind !== 'arbor-host-tool') continue;
    const queue = tool.taskQueue ?? defaultTaskQueue;
    const activities = queues.get(queue) ?? {};
    activities[hostToolActivityType(tool.name)] = toolActivity(tool);
    queues.set(queue, activities);
  }
  return queues;
}

/**
 * Whether a call needs approval, by the tool's own rule: `needsApproval` as a function gets the arguments its schema
 * accepted. Arguments the schema refuses need none (the call is refused as it runs), and a tool this worker does not
 * have, or a function that throws, is asked about.
 */
function needsApprovalActivity(tools: readonly ToolDefinition[]): (input: HostToolApprovalCheck) => Promise<boolean> {
  return async ({ tool_name, arguments: args }) => {
    const tool = tools.find((candidate) => candidate.name === tool_name);
    if (!tool) return true;
    const rule = tool.needsApproval;
    if (typeof rule !== 'function') return rule === true;
    if (tool.kind !== 'arbor-host-tool') return true;
    const parsed = tool.input.safeParse(args ?? {});
    if (!parsed.success) return false;
    try {
      return (await Promise.resolve(rule(parsed.data))) !== false;
    } catch {
      return true;
    }
  };
}

/**
 * One host tool as an activity: validates the model's arguments with the tool's zod schema (a refusal is not
 * retried, and its message is what the model reads), runs the handler while heartbeating so that cancellation
 * reaches it, and refuses a result over the tool-result limit.
 */
function toolActivity(tool: HostTool): ToolActivity {
  const heartbeatTimeoutMs = tool.heartbeatTimeout === undefined ? toolDefaults.heartbeatTimeoutMs : msToNumber(tool.heartbeatTimeout);
  // Beats well inside the timeout (the SDK throttles what it sends to the server to about 80% of it).
  const everyMs = Math.max(200, Math.min(1_000, heartbeatTimeoutMs / 4));
  return async (input) => {
    const parsed = tool.input.safeParse(input?.arguments ?? {});
    if (!parsed.success) {
      throw ApplicationFailure.create({
        message: `Invalid arguments for ${tool.name}:\n${z.prettifyError(parsed.error)}`,
        type: invalidToolArguments,
        nonRetryable: true,
      });
    }
    const activity = Context.current();
    let details: unknown;
    const beat = setInterval(() => activity.heartbeat(details), everyMs);
    const context: HostToolContext = {
      sessionId: input.context.session_id,
      rootSessionId: input.context.root_session_id,
      owner: input.context.owner,
      toolCallId: input.context.tool_call_id,
      idempotencyKey: input.context.idempotency_key,
      attempt: activity.info.attempt,
      signal: activity.cancellationSignal,
      heartbeat(next?: unknown) {
        details = next;
        activity.heartbeat(next);
      },
    };
    try {
      // A handler that ignores its signal still ends the activity as cancelled when the call is cancelled.
      const result = await Promise.race([Promise.resolve(tool.run(parsed.data, context)), activity.cancelled]);
      return checkedResult(tool.name, result);
    } finally {
      clearInterval(beat);
    }
  };
}

function checkedResult(name: string, result: unknown): unknown {
  const value = result === undefined ? null : result;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === undefined) {
    throw ApplicationFailure.create({ message: `Tool ${name} returned a value that is not JSON.`, nonRetryable: true });
  }
  if (text.length > maxToolResultLength) {
    throw ApplicationFailure.create({
      message: `Tool ${name} returned ${text.length.toLocaleString('en-US')} characters, more than the ${maxToolResultLength.toLocaleString('en-US')} a tool result may have.`,
      type: toolResultTooLarge,
      nonRetryable: true,
    });
  }
  return value;
}
