import type { ModelUsage } from './usage.js';
import type { ToolSearchLimits } from './tools/tool-search.js';
import type { ToolCall, TranscriptEntry } from './session.js';
import type { HostToolCatalogue } from './host-tools.js';
import type { ProfileName } from './tools/profiles/names.js';

/** The model the demo provider answers to; also the default when no endpoint is configured. */
export const demoModelName = 'demo';

/**
 * Input of the `callModel` activity. The transcript travels as a delta (entries from `start` on) so that
 * history grows with new content only; the activity rebuilds the earlier part from its cache or a query.
 */
export interface CallModelInput {
  session_id: string;
  run_id: string;
  model: string;
  turn: number;
  round: number;
  system_prompt: string;
  tool_names: string[];
  /** The session's tool profile, whose notes the tools' descriptions carry; absent: `all`. */
  profile?: ProfileName;
  /** When tool_names include host tools: the digest of the session's catalogue, whose specs the worker looks up by it. */
  host_tools_digest?: string;
  transcript_start: number;
  transcript_delta: TranscriptEntry[];
  /**
   * The todo list, plan, goals and pending questions as text: added to the system prompt whenever the conversation
   * the model is shown is not whole (summarized, or fitted to the context window), so that none of them is lost.
   */
  pinned_state?: string;
}

export interface ModelReply {
  content: string | null;
  tool_calls: ToolCall[];
  /** Present when the conversation was fitted to the model's context window before it was sent (for people reading history). */
  context_fitted?: {
    left_out_messages: number;
    cut_characters: number;
    /** The characters the conversation had after the system prompt and tool specs (a summary keeps its newest part within it). */
    conversation_chars?: number;
  };
  /** What the call used, when the provider reported it (read, bounded, by `readModelReply`; priced by the activity). */
  usage?: ModelUsage;
}

/** What the worker tells a new session about where it runs: recorded once in history, so replay sees the same. */
export interface SessionEnvironment {
  model: string;
  provider: 'demo' | 'openai-compatible';
  /** False on servers without custom search attributes (the time-skipping test server). */
  search_attributes: boolean;
  /** Built-in tools this worker cannot serve (webSearch with no engine configured); absent in older histories. */
  unavailable_tools?: string[];
  /** How long askUser waits for the user before telling the model nobody answered; absent waits without limit. */
  question_timeout_seconds?: number;
  /** Loop limits of this deployment; absent means the defaults (10 seconds, 7 days). */
  loop_min_interval_seconds?: number;
  loop_max_age_seconds?: number;
  /** The time zone of cron expressions (IANA name); absent means UTC. */
  cron_timezone?: string;
  /** The host and remote tools the session may call; absent (older histories, workers without tools): none. */
  host_tools?: HostToolCatalogue;
  /**
   * The worker's administrator list: tools no automation run may use. A root session that is an automation run withholds
   * them from itself (and so from its sub-agents); absent (older histories, workers without a list): none.
   */
  automation_disallowed_tools?: string[];
  /** When the session's host tools are deferred behind ToolSearch; absent (older histories, tool search off): never. */
  tool_search?: ToolSearchLimits;
  /** Set when the worker has a skills folder: the session is offered the Skill tool. */
  skills?: true;
}

/** ApplicationFailure type of a model request the provider refused (400, 401, 403, 404, 422): retrying cannot help. */
export const modelRequestRejected = 'ModelRequestRejected';
/** ApplicationFailure type of a model failure worth retrying (429, 5xx, timeouts, connection errors). */
export const modelTemporarilyUnavailable = 'ModelTemporarilyUnavailable';
/** ApplicationFailure type of a model answer larger than a session takes (see maxModelAnswerBytes): not retried. */
export const modelAnswerTooLarge = 'ModelAnswerTooLarge';
