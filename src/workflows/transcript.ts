import type { CarriedState, TranscriptEntry, TranscriptPage, TranscriptPageRequest } from '../shared/session.js';
import { utf8Length } from '../shared/utf8.js';
import type { StateClock } from './state-clock.js';
import { withSummaryKept } from './summary-carry.js';

/** The transcript's part of the carried state. */
export type CarriedTranscript = Pick<CarriedState, 'transcript' | 'transcript_start' | 'forgotten_message_ids'>;

/**
 * A session's conversation in this run: the entries, their positions in the session (earlier runs compacted some
 * away), the pages the transcript queries read, and what a continue-as-new keeps of it. Pure: no Temporal calls.
 */
export class Transcript {
  readonly entries: TranscriptEntry[];
  /** Handled user messages no longer in the transcript (compacted away at continue-as-new), oldest first. */
  private readonly forgottenMessageIds: ReadonlySet<string>;
  /** The session's position of `entries[0]`: how many entries earlier runs compacted away (less their notices). */
  private readonly start: number;

  constructor(
    private readonly clock: StateClock,
    carried?: CarriedTranscript,
  ) {
    this.entries = carried?.transcript ?? [];
    this.forgottenMessageIds = new Set(carried?.forgotten_message_ids);
    this.start = carried?.transcript_start ?? 0;
  }

  /** Adds an entry, with an id (unless it has one) and the time. */
  append(entry: Omit<TranscriptEntry, 'id' | 'created_at'> & { id?: string }): TranscriptEntry {
    const full: TranscriptEntry = { ...entry, id: entry.id ?? this.clock.newId(), created_at: this.clock.now().toISOString() };
    this.entries.push(full);
    return full;
  }

  last(): TranscriptEntry | undefined {
    return this.entries[this.entries.length - 1];
  }

  /** Whether a user message with this id was taken into a turn, in this run or one before. */
  hasHandled(messageId: string): boolean {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const entry = this.entries[i]!;
      if (entry.role === 'user' && entry.id === messageId) return true;
    }
    return this.forgottenMessageIds.has(messageId);
  }

  /** The entries the session has had in all, over every run: the snapshot's `message_count`. */
  total(): number {
    return this.start + this.entries.length;
  }

  /** The text a caller sees as the session's answer: the last assistant message with content. */
  finalMessage(): string | null {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const entry = this.entries[i]!;
      if (entry.role === 'assistant' && entry.content) return entry.content;
    }
    return null;
  }

  /** A range by this run's positions (the `transcript` query). */
  range(range: TranscriptPageRequest = {}): TranscriptEntry[] {
    const offset = Math.max(0, range.offset ?? 0);
    const end = range.limit === undefined ? this.entries.length : Math.min(this.entries.length, offset + Math.max(0, range.limit));
    const maxChars = range.max_chars;
    if (typeof maxChars !== 'number' || !(maxChars > 0)) return this.entries.slice(offset, end);
    let stop = offset;
    for (let chars = 0; stop < end; stop++) {
      chars += entryChars(this.entries[stop]!);
      if (chars > maxChars && stop > offset) break;
    }
    return this.entries.slice(offset, stop);
  }

  /** A page by the session's positions (the `transcriptPage` query); a position before the oldest entry still held reads from that entry. */
  page(request: TranscriptPageRequest = {}, runId: string): TranscriptPage {
    const asked = typeof request.offset === 'number' && Number.isFinite(request.offset) ? Math.floor(request.offset) : 0;
    const offset = Math.max(this.start, asked);
    const entries = this.range({ ...request, offset: offset - this.start });
    return { entries, offset, total: this.total(), run_id: runId };
  }

  /**
   * What the next run starts from: the newest entries in `room` bytes (at least `minimumCarriedTranscriptBytes`, at
   * most `carriedTranscriptBytes`), their position in the session, and the ids of the user messages left behind.
   */
  carry(room: number): CarriedTranscript {
    const maxBytes = Math.max(minimumCarriedTranscriptBytes, Math.min(carriedTranscriptBytes, room));
    const transcript = withSummaryKept(this.entries, (entries, bytes) =>
      compactTranscript(entries, this.clock.now().toISOString(), maxBytes - bytes),
    );
    const forgotten = this.forgottenMessageIdsAfter(transcript);
    const start = this.start + this.entries.length - transcript.length;
    return {
      transcript,
      ...(start > 0 ? { transcript_start: start } : {}),
      ...(forgotten.length > 0 ? { forgotten_message_ids: forgotten } : {}),
    };
  }

  /** The ids of handled user messages `kept` leaves out, with those forgotten before, newest last and bounded. */
  private forgottenMessageIdsAfter(kept: readonly TranscriptEntry[]): string[] {
    const keptIds = new Set(kept.map((entry) => entry.id));
    const dropped = this.entries.flatMap((entry) => (entry.role === 'user' && entry.id && !keptIds.has(entry.id) ? [entry.id] : []));
    return [...this.forgottenMessageIds, ...dropped].slice(-carriedForgottenMessageIds);
  }
}

/** The most ids of compacted-away user messages a continue-as-new carries (ids are at most 200 characters). */
export const carriedForgottenMessageIds = 1_000;

/** The most transcript entries a continue-as-new carries: the conversation's recent part, which the model sees next. */
export const carriedTranscriptEntries = 400;

/**
 * The most bytes (UTF-8) of transcript a continue-as-new carries (contents and tool calls). Entries are up to 200,000
 * characters (a message), 100,000 (a tool result) or 1 MB (a model answer), so 400 of them could far exceed Temporal's
 * 2 MB payload limit, and a continue-as-new over it would leave the session stuck. Counted in bytes, not characters:
 * a character of Chinese or Japanese takes three.
 */
export const carriedTranscriptBytes = 1_000_000;

/** The least transcript a continue-as-new carries, however large the rest of the state. */
const minimumCarriedTranscriptBytes = 100_000;

/**
 * Keeps a long conversation's newest entries across continue-as-new, at most `carriedTranscriptEntries` of them and
 * `maxBytes` bytes, starting at a user message so no tool result is cut from its call, with a notice of how much was
 * left behind. The carried state then stays well under Temporal's 2 MB payload limit however long the session lives.
 */
export function compactTranscript(transcript: TranscriptEntry[], now: string, maxBytes = carriedTranscriptBytes): TranscriptEntry[] {
  let cut = Math.max(0, transcript.length - carriedTranscriptEntries);
  let bytes = 0;
  for (let index = transcript.length - 1; index >= cut; index--) {
    bytes += entryBytes(transcript[index]!);
    if (bytes > maxBytes) {
      cut = index + 1;
      break;
    }
  }
  if (cut === 0) return transcript;
  const isUser = (index: number) => transcript[index]!.role === 'user';
  let start = cut;
  while (start < transcript.length && !isUser(start)) start++;
  if (start === transcript.length) {
    // One turn longer than the whole allowance: keep it from its user message, if that fits; else from the first of
    // its model answers that does (so no tool result is kept without its call).
    for (start = cut; start > 0 && !isUser(start); start--);
    if (bytesFrom(transcript, start) > maxBytes) {
      for (start = cut; start < transcript.length && transcript[start]!.role !== 'assistant'; start++);
    }
  }
  const kept = transcript.slice(start);
  const dropped = transcript.length - kept.length;
  const notice: TranscriptEntry = {
    id: `compacted:${transcript[start - 1]?.id ?? 'start'}`,
    role: 'notice',
    content: `${dropped} earlier transcript entries were compacted away when the session continued as new; the conversation goes on from here.`,
    created_at: now,
  };
  return [notice, ...kept];
}

function entryChars(entry: TranscriptEntry): number {
  let chars = entry.content.length;
  for (const call of entry.tool_calls ?? []) chars += call.id.length + call.name.length + call.arguments.length;
  return chars;
}

function entryBytes(entry: TranscriptEntry): number {
  let bytes = utf8Length(entry.content);
  for (const call of entry.tool_calls ?? []) bytes += utf8Length(call.id) + utf8Length(call.name) + utf8Length(call.arguments);
  return bytes;
}

function bytesFrom(transcript: TranscriptEntry[], start: number): number {
  let bytes = 0;
  for (let index = start; index < transcript.length; index++) bytes += entryBytes(transcript[index]!);
  return bytes;
}
