import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  proxyActivities,
  TimeoutFailure,
} from '@temporalio/workflow';
import {
  hostToolActivityType,
  invalidToolArguments,
  maxToolResultLength,
  toolResultTooLarge,
  type HostToolActivityInput,
  type HostToolEntry,
} from '../../shared/host-tools.js';
import { approveHostToolCall } from './host-tool-approval.js';
import type { ToolContext } from './tool-context.js';
import { ToolError } from './tool-error.js';

type ToolActivities = Record<string, (input: HostToolActivityInput) => Promise<unknown>>;

/**
 * Runs one call of a host or remote tool as the activity `tool:<name>` on the tool's task queue, with the timeouts
 * and retries its catalogue entry gives. Its result is the tool result (text as is, other JSON as JSON text); every
 * failure (arguments refused, the handler threw, a timeout after the retries, nobody polling the queue, a result too
 * large) is a tool error the model reads. Not async: the SDK captures a stack trace for every workflow promise.
 */
export function runHostTool(tool: HostToolEntry, rawArgs: unknown, argumentsText: string, context: ToolContext): Promise<string> {
  if (typeof rawArgs !== 'object' || rawArgs === null || Array.isArray(rawArgs)) {
    throw new ToolError(`Arguments for ${tool.name} must be a JSON object.`);
  }
  const args = rawArgs as Record<string, unknown>;
  return approveHostToolCall(tool, args, argumentsText, context).then((decision) => {
    if (!decision.approved) throw new ToolError(decision.reason);
    // Only a call that might have asked: one that never asks runs as the round's other calls do.
    if (tool.needs_approval !== false) context.callProceeds();
    return scheduleCall(tool, args, argumentsText, context);
  });
}

function scheduleCall(tool: HostToolEntry, args: Record<string, unknown>, argumentsText: string, context: ToolContext): Promise<string> {
  const { identity } = context.state;
  const input: HostToolActivityInput = {
    arguments: args,
    context: {
      session_id: identity.session_id,
      root_session_id: identity.root_session_id,
      owner: identity.owner,
      tool_call_id: context.toolCallId,
      idempotency_key: context.stepKey,
    },
  };
  // Its worker never learns of a cancellation: in an interruptible turn, an interrupt waits for its result.
  const keptThroughInterrupt = context.interruption?.enabled === true && tool.heartbeat_timeout_ms === undefined;
  const activities = proxyActivities<ToolActivities>({
    ...(tool.task_queue ? { taskQueue: tool.task_queue } : {}),
    startToCloseTimeout: tool.start_to_close_timeout_ms,
    scheduleToStartTimeout: tool.schedule_to_start_timeout_ms,
    ...(tool.heartbeat_timeout_ms !== undefined ? { heartbeatTimeout: tool.heartbeat_timeout_ms } : {}),
    ...(keptThroughInterrupt ? { cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED } : {}),
    retry: {
      maximumAttempts: tool.retry.maximum_attempts,
      initialInterval: tool.retry.initial_interval_ms,
      backoffCoefficient: tool.retry.backoff_coefficient,
      maximumInterval: tool.retry.maximum_interval_ms,
    },
  });
  // The Web UI shows it on the activity: an MCP call names its server and the tool's own name there.
  const summary = `${tool.mcp ? `MCP ${tool.mcp.server}: ${tool.mcp.tool}` : tool.name}: ${shortArguments(argumentsText)}`;
  const call = activities[hostToolActivityType(tool.name)]!.executeWithOptions({ summary }, [input]);
  return (keptThroughInterrupt ? context.interruption!.keepThroughInterrupt(call, tool.name) : call).then(
    (result) => resultText(tool, result),
    (error: unknown) => {
      throw describeFailure(tool, error);
    },
  );
}

function resultText(tool: HostToolEntry, result: unknown): string {
  const text = typeof result === 'string' ? result : (JSON.stringify(result ?? null) ?? 'null');
  if (text.length > maxToolResultLength) {
    throw new ToolError(
      `Tool ${tool.name} returned ${text.length} characters, more than the ${maxToolResultLength} a tool result may have.`,
    );
  }
  return text;
}

/** The model-facing words for a failed call; cancellation (the session was stopped) goes on as it is. */
function describeFailure(tool: HostToolEntry, error: unknown): unknown {
  if (!(error instanceof ActivityFailure) || isCancellation(error)) return error;
  const cause = error.cause;
  if (cause instanceof TimeoutFailure) {
    if (cause.timeoutType === 'SCHEDULE_TO_START') {
      const queue = tool.task_queue ? `task queue "${tool.task_queue}"` : "the session's task queue";
      return new ToolError(
        `Tool ${tool.name} did not run: no worker picked the call up from ${queue} within ${seconds(tool.schedule_to_start_timeout_ms)}.`,
      );
    }
    const which = cause.timeoutType === 'HEARTBEAT' ? 'stopped heartbeating' : `ran longer than ${seconds(tool.start_to_close_timeout_ms)}`;
    return new ToolError(`Tool ${tool.name} timed out: it ${which} (attempts allowed: ${tool.retry.maximum_attempts}).`);
  }
  // A worker polls the queue but has no such activity: the tool was left out of a redeploy, say.
  if (cause instanceof ApplicationFailure && cause.type === 'NotFoundError') {
    const queue = tool.task_queue ? `task queue "${tool.task_queue}"` : "the session's task queue";
    return new ToolError(
      `Tool ${tool.name} is not served: the worker that took the call from ${queue} has no activity ${hostToolActivityType(tool.name)}.`,
    );
  }
  // The tool's own refusals (its schema's, the result limit's) say what happened already.
  if (cause instanceof ApplicationFailure && (cause.type === invalidToolArguments || cause.type === toolResultTooLarge)) {
    return new ToolError(cause.message);
  }
  if (cause) return new ToolError(`Tool ${tool.name} failed: ${cause.message}`);
  return new ToolError(`Tool ${tool.name} failed: ${error.message}`);
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function shortArguments(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim() || '{}';
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}
