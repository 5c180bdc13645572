import { ApplicationFailure, Context } from '@temporalio/activity';
import { hostToolActivityType, maxToolResultLength, toolResultTooLarge, type HostToolActivityInput } from '../shared/host-tools.js';
import type { McpServers } from './mcp-servers.js';
import { McpServerUnavailable } from './server-connection.js';
import { mcpResultText } from './tool-result.js';

/** ApplicationFailure type of an MCP call the server answered with `isError`, or could not take: not retried. */
export const mcpToolFailed = 'McpToolFailed';

const defaultCallTimeoutMs = 5 * 60_000;

/**
 * The worker's default activity: a `tool:<server>__<tool>` call goes to that MCP server (tools come and go with the
 * servers' lists, so they are not registered one by one); any other unregistered type fails as the SDK's own
 * NotFoundError would. A server that is down, an `isError` result and a result over the limit are tool errors the
 * model reads, never retried; the activity heartbeats while the call runs, so that cancellation reaches it.
 */
export function mcpToolActivity(servers: McpServers): (input: HostToolActivityInput) => Promise<string> {
  return async (input) => {
    const activity = Context.current();
    const type = activity.info.activityType;
    const prefix = hostToolActivityType('');
    const target = type.startsWith(prefix) ? servers.resolve(type.slice(prefix.length)) : undefined;
    if (!target) {
      throw ApplicationFailure.create({
        type: 'NotFoundError',
        message: `Activity function ${type} is not registered on this Worker`,
        nonRetryable: true,
      });
    }
    const { connection, tool } = target;
    const beat = setInterval(() => activity.heartbeat(), 1_000);
    try {
      const result = await connection.callTool(tool, input?.arguments ?? {}, {
        signal: activity.cancellationSignal,
        timeoutMs: connection.config.callTimeoutMs ?? defaultCallTimeoutMs,
        onProgress: () => activity.heartbeat(),
      });
      const text = mcpResultText(result);
      if (result.isError) {
        throw ApplicationFailure.create({
          type: mcpToolFailed,
          message: text || `MCP server ${connection.name} reported an error from ${tool}, without a message.`,
          nonRetryable: true,
        });
      }
      if (text.length > maxToolResultLength) {
        throw ApplicationFailure.create({
          type: toolResultTooLarge,
          message: `Tool ${type.slice(prefix.length)} returned ${text.length.toLocaleString('en-US')} characters, more than the ${maxToolResultLength.toLocaleString('en-US')} a tool result may have.`,
          nonRetryable: true,
        });
      }
      return text;
    } catch (error) {
      if (error instanceof McpServerUnavailable)
        throw ApplicationFailure.create({ type: mcpToolFailed, message: error.message, nonRetryable: true });
      throw error;
    } finally {
      clearInterval(beat);
    }
  };
}
