import type { Duration } from '@temporalio/common';
import type { z } from 'zod';

/** What a host tool's handler is given besides its arguments. */
export interface HostToolContext {
  sessionId: string;
  rootSessionId: string;
  owner: string;
  toolCallId: string;
  /**
   * The call's durable step key (session/turn/round/call): the same on every retry of this call, after a worker
   * restart and across continue-as-new. A call may run more than once (at least once); key side effects on this.
   */
  idempotencyKey: string;
  /** The attempt this run of the call is (1 first). */
  attempt: number;
  /** Fires when the call is cancelled (the session was stopped) or timed out. */
  signal: AbortSignal;
  /** Tells Temporal the call is alive (the wrapper also does so while the handler runs); details are kept for the next attempt. */
  heartbeat(details?: unknown): void;
}

/** Temporal's retry policy for a tool's calls; durations in milliseconds or as Temporal durations ('5 seconds'). */
export interface HostToolRetry {
  maximumAttempts?: number;
  initialInterval?: Duration;
  backoffCoefficient?: number;
  maximumInterval?: Duration;
}

/** Options of a host or remote tool. Durations are milliseconds or strings such as '30 seconds', '2 minutes'. */
export interface ToolOptions {
  /** How long one attempt may run (default 5 minutes). */
  startToCloseTimeout?: Duration;
  /** How long a call may wait for a worker to pick it up (default 60 seconds): bounds a task queue nobody polls. */
  scheduleToStartTimeout?: Duration;
  /**
   * How long the activity may go without a heartbeat. Host tools: default 10 seconds, kept by the wrapper while the
   * handler runs, and what delivers cancellation to it. Remote tools: none unless given (their worker must heartbeat).
   */
  heartbeatTimeout?: Duration;
  /** Default: 3 attempts, 1 second apart at first, doubling up to 30 seconds. */
  retry?: HostToolRetry;
  /** Whether a call needs the user's approval before it runs (recorded in the catalogue). */
  needsApproval?: boolean;
  /** Task queue the calls are scheduled on (default: the session's). */
  taskQueue?: string;
  /**
   * Whether a call changes the world outside the conversation (sends, pays, deletes, deploys): a session in Plan mode
   * never runs it (recorded in the catalogue as `destructive`). Default false.
   */
  destructive?: boolean;
}

export interface HostToolDefinition<Input extends z.ZodType = z.ZodType> extends Omit<ToolOptions, 'needsApproval'> {
  name: string;
  description: string;
  /** The arguments' zod schema: the JSON schema the model sees, the validation of its arguments and the handler's types. */
  input: Input;
  run(args: z.infer<Input>, context: HostToolContext): Promise<unknown> | unknown;
  /** A boolean, or a function of the (validated) arguments. */
  needsApproval?: boolean | ApprovalRule<z.infer<Input>>;
}

/** Declared as a method's type, so a tool of any input fits a list of tools. */
type ApprovalRule<Args> = { rule(args: Args): boolean }['rule'];

export interface HostTool<Input extends z.ZodType = z.ZodType> extends HostToolDefinition<Input> {
  kind: 'arbor-host-tool';
}

export interface RemoteToolDefinition extends ToolOptions {
  name: string;
  description: string;
  /** The JSON schema of the arguments (an object schema); the worker that runs the tool validates them. */
  parameters: Record<string, unknown>;
  /** The task queue whose worker runs the tool's activity, `tool:<name>`. */
  taskQueue: string;
}

export interface RemoteTool extends RemoteToolDefinition {
  kind: 'arbor-remote-tool';
}

export type ToolDefinition = HostTool<z.ZodType> | RemoteTool;

/** A tool run by the worker that serves it: `run` is called once per call (at least once; see idempotencyKey). */
export function defineHostTool<Input extends z.ZodType>(definition: HostToolDefinition<Input>): HostTool<Input> {
  return { ...definition, kind: 'arbor-host-tool' };
}

/** A tool run by whatever worker polls `taskQueue` (any language), as the activity `tool:<name>`. */
export function defineRemoteTool(definition: RemoteToolDefinition): RemoteTool {
  return { ...definition, kind: 'arbor-remote-tool' };
}

/** Whether a value is a tool definition made by defineHostTool or defineRemoteTool (of any copy of this package). */
export function isToolDefinition(value: unknown): value is ToolDefinition {
  if (typeof value !== 'object' || value === null) return false;
  const kind = (value as { kind?: unknown }).kind;
  return kind === 'arbor-host-tool' || kind === 'arbor-remote-tool';
}
