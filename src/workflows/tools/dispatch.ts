import { isCancellation } from '@temporalio/workflow';
import { z } from 'zod';
import type { ToolCall } from '../../shared/session.js';
import { findTool, type ToolName } from '../../shared/tools/registry.js';
import { toolHandlers } from './handlers.js';
import type { ToolContext } from './tool-context.js';
import { ToolError } from './tool-error.js';
import { maxToolResultLength } from '../../shared/host-tools.js';
import { findHostTool } from '../deployment-settings.js';
import { runHostTool } from './host-tool-handler.js';
import { isDestructive, planModeRefusal } from './destructive-tools.js';
import { notLoadedRefusal } from '../deferred-tools.js';
import { toolProfiles } from '../../shared/tools/profiles/index.js';

export interface ToolOutcome {
  content: string;
  is_error: boolean;
}

/**
 * Validates one tool call against its schema and runs it. Anything the model got wrong (unknown tool,
 * malformed JSON, arguments the schema refuses, a rule the handler enforces) comes back as a tool error
 * the model can correct; only cancellation propagates.
 *
 * Not async (issue 32): a call that runs outside the workflow task (an activity, a child's start) settles through one
 * `then`, where the async function's promise and its await were two promises the SDK captures a stack trace for. Each
 * outcome is ready at the same point as before: a refusal thrown at once, at once; a string result one step later (as
 * the await of it was); a promised one, one step after it settles.
 */
export function dispatchToolCall(
  call: ToolCall,
  allowedTools: ReadonlySet<string>,
  context: Omit<ToolContext, 'toolCallId'>,
): Promise<ToolOutcome> {
  let content: string | Promise<string>;
  try {
    content = runToolCall(call, allowedTools, { ...context, toolCallId: call.id });
  } catch (error) {
    return isCancellation(error) ? Promise.reject(error) : Promise.resolve(failedOutcome(call, error));
  }
  const failed = (error: unknown): ToolOutcome => {
    if (isCancellation(error)) throw error;
    return failedOutcome(call, error);
  };
  const succeeded = (text: string): ToolOutcome => {
    try {
      return { content: bound(text), is_error: false };
    } catch (error) {
      return failed(error);
    }
  };
  if (!(content instanceof Promise)) return Promise.resolve(content).then(succeeded);
  return content.then(succeeded, failed);
}

function failedOutcome(call: ToolCall, error: unknown): ToolOutcome {
  const message = error instanceof ToolError ? error.message : `Tool ${call.name} failed: ${describe(error)}`;
  return { content: bound(`Error: ${message}`), is_error: true };
}

/** Throws the model's mistakes at once; not async, since the SDK captures a stack trace for every workflow promise. */
function runToolCall(call: ToolCall, allowedTools: ReadonlySet<string>, context: ToolContext): string | Promise<string> {
  const tool = allowedTools.has(call.name) ? findTool(call.name) : undefined;
  const hostTool = !tool && allowedTools.has(call.name) ? findHostTool(context.state.settings, call.name) : undefined;
  // Plan mode: a destructive tool of the session's does not run, whatever the model sent (its arguments are not read).
  if ((tool || hostTool) && context.state.workMode === 'plan' && isDestructive(call.name, context.state.settings))
    throw new ToolError(planModeRefusal(call.name, context.state.profile));
  if (hostTool && !context.state.deferredTools.isCallable(call.name)) throw new ToolError(notLoadedRefusal(call.name));
  if (hostTool) return runHostTool(hostTool, parseArguments(call.arguments), call.arguments, context);
  if (!tool) {
    // Deferred tools not loaded are left out: ToolSearch finds them.
    const available = [...allowedTools].filter((name) => context.state.deferredTools.isCallable(name)).join(', ') || 'none';
    const { profile } = context.state;
    const profileNote = profile === 'all' ? '' : ` This session has the ${profile} tool profile.`;
    throw new ToolError(`Unknown tool "${call.name}". Available tools: ${available}.${profileNote}`);
  }
  const raw = parseArguments(call.arguments);
  const parsed = tool.input.safeParse(raw);
  if (!parsed.success) {
    throw new ToolError(`Invalid arguments for ${tool.name}:\n${z.prettifyError(parsed.error)}`);
  }
  const handler = toolHandlers[tool.name as ToolName] as (args: unknown, context: ToolContext) => string | Promise<string>;
  const adapt = toolProfiles[context.state.profile].adaptResult;
  if (!adapt) return handler(parsed.data, context);
  const content = handler(parsed.data, context);
  return typeof content === 'string' ? adapt(tool.name, content) : content.then((text) => adapt(tool.name, text));
}

function parseArguments(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ToolError(`Arguments are not valid JSON (${describe(error)}). Send a JSON object.`);
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message;
  return String(error);
}

function bound(text: string): string {
  if (text.length <= maxToolResultLength) return text;
  return `${text.slice(0, maxToolResultLength)}\n[truncated: ${text.length - maxToolResultLength} more characters]`;
}
