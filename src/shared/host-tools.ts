/**
 * Tools that are not built in: host tools (run by a worker that defines them) and remote tools (run by whatever
 * worker polls their task queue, in any language). Both sides read these: the Node side builds the catalogue, the
 * session records it and schedules each call as an activity of type `tool:<name>`. The names and shapes here are a
 * durable protocol that other languages' workers implement: never change them.
 */

/** A tool's name, by the OpenAI API's rule for function names. */
export const hostToolNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;

/** The activity type of a host or remote tool's calls. */
export function hostToolActivityType(name: string): string {
  return `tool:${name}`;
}

/** The most characters of a tool result the model is given (longer host tool results are refused as tool errors). */
export const maxToolResultLength = 100_000;

/** How a tool asks for approval before a call: never, always, or as a function of the call's arguments decides. */
export type HostToolApproval = boolean | 'by_arguments';

/** One tool of the catalogue, as the session records it in history (JSON, snake_case). */
export interface HostToolEntry {
  name: string;
  description: string;
  /** The JSON schema of the arguments, an object schema, as the model is shown it. */
  parameters: Record<string, unknown>;
  /** Where its calls are scheduled; absent: the session's own task queue. */
  task_queue?: string;
  needs_approval: HostToolApproval;
  /** True for a tool declared with only its schema (defineRemoteTool): no TypeScript worker validates its arguments. */
  remote: boolean;
  /** Set (true) for a tool declared `destructive`: a session in Plan mode does not run it. Absent: not destructive. */
  destructive?: true;
  /** Set for a tool of an MCP server the worker connects to: the server's name and the tool's own name there. */
  mcp?: HostToolMcpOrigin;
  start_to_close_timeout_ms: number;
  schedule_to_start_timeout_ms: number;
  /** Absent: the activity is not expected to heartbeat. */
  heartbeat_timeout_ms?: number;
  retry: {
    maximum_attempts: number;
    initial_interval_ms: number;
    backoff_coefficient: number;
    maximum_interval_ms: number;
  };
}

/** Where an MCP tool comes from: its catalogue name is `<server>__<tool>` (made to fit hostToolNamePattern). */
export interface HostToolMcpOrigin {
  server: string;
  tool: string;
}

/** The tools a session may call besides the built-ins, and a digest that names this exact list. */
export interface HostToolCatalogue {
  digest: string;
  tools: HostToolEntry[];
  /**
   * MCP servers of the worker that had not listed their tools when the catalogue was taken (starting, or down and
   * retried): ToolSearch names them as still loading. Absent: none. Not part of the digest, which names the tools.
   */
  pending_mcp_servers?: string[];
}

/** The one argument of a `tool:<name>` activity. */
export interface HostToolActivityInput {
  /** The model's arguments, a JSON object. */
  arguments: Record<string, unknown>;
  context: {
    session_id: string;
    root_session_id: string;
    owner: string;
    tool_call_id: string;
    /** The call's durable step key (session/turn/round/call): the same across retries, worker restarts and continue-as-new. */
    idempotency_key: string;
  };
}

/**
 * The local activity that asks a host tool's `needsApproval` function (`needs_approval: 'by_arguments'`) whether a
 * call needs approval, on the worker, so that the answer is recorded in history. True when the worker has no such
 * tool or the function throws: a call is asked about rather than run unasked.
 */
export const hostToolNeedsApprovalActivity = 'hostToolNeedsApproval';
export interface HostToolApprovalCheck {
  tool_name: string;
  arguments: Record<string, unknown>;
}

/** ApplicationFailure type of a host tool call whose arguments its schema refuses: not retried. */
export const invalidToolArguments = 'InvalidToolArguments';
/** ApplicationFailure type of a host tool result over maxToolResultLength: not retried. */
export const toolResultTooLarge = 'ToolResultTooLarge';
