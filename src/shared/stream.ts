/**
 * A session's live stream: what the model writes while a call runs (text deltas, the names of tool calls as they
 * start), tool results and turn ends, as it happens. Not durable: the workflow keeps the newest items in memory only
 * (not in the transcript, not carried across continue-as-new); the completed reply alone enters the transcript.
 */

/** Where an item was written: the turn, the model call (round) within it, and the activity attempt of that call. */
export interface StreamOrigin {
  turn: number;
  round: number;
  /** 1 for a call's first attempt; a retried attempt starts over, so text of earlier attempts is to be discarded. */
  attempt: number;
}

export type StreamItemBody =
  | ({ type: 'text_delta'; text: string } & StreamOrigin)
  | ({ type: 'tool_call_started'; index: number; tool_call_id: string; name: string } & StreamOrigin)
  /** A model call is being attempted again: text of this round with a smaller attempt number is void. */
  | ({ type: 'retry' } & StreamOrigin)
  | { type: 'tool_result'; turn: number; tool_call_id: string; name: string; is_error: boolean }
  /** A sub-agent of this session has started: its own stream holds what it writes (read by the tree stream at once). */
  | { type: 'sub_agent_started'; turn: number; sub_session_id: string; title: string }
  /** The turn was interrupted: text of its unfinished model call is void (it never reaches the transcript). */
  | { type: 'turn_interrupted'; turn: number; round: number }
  | { type: 'turn_ended'; turn: number; outcome: 'answered' | 'round_limit' | 'model_failed' | 'budget_spent' | 'interrupted' };

export type StreamItemType = StreamItemBody['type'];

/**
 * One numbered item. Positions grow across the runs of a session: a run numbers its items from its start time in
 * milliseconds times 1,000 (see StreamRing), so `from` a position read in an earlier run still means "after this".
 */
export type StreamItem = StreamItemBody & { pos: number; session_id: string };

/** What the model call activity sends its workflow, batched (see `streamBatchIntervalMs`). */
export interface StreamBatch {
  items: StreamItemBody[];
}

export interface StreamRange {
  /** Items with a larger position than this (default 0: everything still held). */
  after?: number;
  limit?: number;
}

export interface StreamPage {
  items: StreamItem[];
  /** The position of the newest item held (0 before the first). */
  last_pos: number;
  /** Whether items after `after` were already dropped from the bounded ring. */
  missed: boolean;
  /**
   * The run (`run_id`) and the length of its history (`history_length`: the started event of the workflow task this
   * answer reflects) the page was read at; absent from workers before them. Batches recorded after that event and
   * before the next workflow task starts are the ring's next items, numbered from `last_pos + 1` in history order
   * (every signal handler runs before any other code of an activation), so a reader can yield them from the history
   * before the workflow takes them (src/client/events/early-stream-items.ts).
   */
  history_length?: number;
  run_id?: string;
}

/**
 * How often the activity sends what the model wrote since its last send: the first delta goes at once, later ones
 * at most once per interval, so a streamed call adds history events by its duration, not by its number of chunks.
 */
export const streamBatchIntervalMs = 200;
/** After this many sends of one call the interval widens by a tenth per send, up to `streamBatchIntervalMaxMs`. */
export const streamBatchesAtFullRate = 25;
export const streamBatchIntervalMaxMs = 2_000;
/**
 * The most sends one model call makes while it runs (each a signal and at most one workflow task, about 4 history
 * events): with the widening interval about 2.8 minutes of writing. What a longer call writes after that arrives in
 * one last send as it ends, so a call adds at most this many plus one, however long the reply.
 */
export const maxStreamBatchesPerCall = 120;

/** Items a session holds in memory, and the most characters of text they may hold together. */
export const streamRingSize = 2_000;
export const streamRingChars = 200_000;
