/** What a scripted model answers to one request: text, tool calls, an HTTP error, or a body written as given. */
export type ModelStep = TextStep | ToolCallsStep | HttpErrorStep | RawStep;

interface Delay {
  /** Wall-clock milliseconds to wait before answering (a slow model; time skipping does not shorten it). */
  delayMs?: number;
}

/** The usage the answer reports (OpenAI's `usage` object); absent: the answer reports none. */
export interface StepUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens?: number;
  reasoning_tokens?: number;
}

interface Usage {
  usage?: StepUsage;
}

export interface TextStep extends Delay, Usage {
  text: string;
}

export interface ToolCallsStep extends Delay, Usage {
  /** More than one is a round of parallel tool calls. */
  toolCalls: ToolCallStep[];
  /** Text beside the calls, as some models write. */
  text?: string;
}

export interface ToolCallStep {
  name: string;
  /** The call's arguments: an object is sent as its JSON; a string is sent as written (malformed JSON, say). */
  arguments?: unknown;
  id?: string;
}

export interface HttpErrorStep extends Delay {
  /** The HTTP status: 429 and 5xx are retried by Arbor (after Retry-After), 400, 401, 403, 404 and 422 are not. */
  httpError: number;
  message?: string;
  retryAfterSeconds?: number;
  headers?: Record<string, string>;
}

export interface RawStep extends Delay {
  /** The response body exactly as given (HTML, malformed JSON, a completion of the wrong shape). */
  raw: string;
  status?: number;
  contentType?: string;
}

/** A step, or a function that makes one from the request it answers. */
export type ScriptItem = ModelStep | ((request: ModelRequest) => ModelStep | Promise<ModelStep>);

/** One chat message of a request, as the OpenAI chat-completions API carries it. */
export interface RequestMessage {
  role: string;
  content: string | null;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** A request the scripted model received, recorded for assertions. */
export interface ModelRequest {
  /** 1 for the first request this model received, counting every session. */
  number: number;
  /** The session that asked (undefined with a ModelSettings of your own that does not send it). */
  sessionId: string | undefined;
  /** The model name the session asked for. */
  model: string;
  /** The system prompt. */
  system: string;
  messages: RequestMessage[];
  /** Names of the tools offered, in order. */
  tools: string[];
  /** The tools offered, as their JSON function specs. */
  toolSpecs: { name: string; description: string; parameters: unknown }[];
  /** The session's first user message: its instruction (a sub-agent's task), as the model first saw it. */
  instruction: string;
  /** The newest user message (a message, a loop firing, a goal continuation). */
  lastUserMessage: string;
  /** The tool results since the model's last answer, parsed from JSON where they are JSON. */
  toolResults: unknown[];
}

export const text = (content: string): TextStep => ({ text: content });

export const toolCall = (name: string, args: unknown = {}): ToolCallsStep => ({ toolCalls: [{ name, arguments: args }] });

/** A round of parallel tool calls: each item is `[name, arguments]`. */
export const toolCalls = (...calls: [name: string, args?: unknown][]): ToolCallsStep => ({
  toolCalls: calls.map(([name, args = {}]) => ({ name, arguments: args })),
});

export const httpError = (status: number, options: Omit<HttpErrorStep, 'httpError'> = {}): HttpErrorStep => ({
  httpError: status,
  ...options,
});

/** A 429 with Retry-After, which Arbor retries after the given seconds (skipped on the time-skipping server). */
export const rateLimited = (retryAfterSeconds: number): HttpErrorStep => ({
  httpError: 429,
  retryAfterSeconds,
  message: 'Rate limit reached',
});

export const delayed = <Step extends ModelStep>(delayMs: number, step: Step): Step => ({ ...step, delayMs });
