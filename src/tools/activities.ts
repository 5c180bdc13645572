import { ApplicationFailure, Context } from '@temporalio/activity';
import { msToNumber } from '@temporalio/common/lib/time.js';
import { z } from 'zod';
import {
  hostToolActivityType,
  invalidToolArguments,
  maxToolResultLength,
  toolResultTooLarge,
  type HostToolActivityInput,
} from '../shared/host-tools.js';
import type { HostTool, HostToolContext, ToolDefinition } from './define.js';
import { toolDefaults } from './catalogue.js';

type ToolActivity = (input: HostToolActivityInput) => Promise<unknown>;

/** The activities that run a worker's host tools, one `tool:<name>` per tool, grouped by the task queue they are served on. */
export function hostToolActivities(tools: readonly ToolDefinition[], defaultTaskQueue: string): Map<string, Record<string, ToolActivity>> {
  const queues = new Map<string, Record<string, ToolActivity>>();
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
