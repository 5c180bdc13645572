import { defineUpdate } from '@temporalio/workflow';
import type { TranscriptEntry } from './session.js';
import type { ModelUsage } from './usage.js';

/**
 * What a summary entry (role `summary`) replaces in the model's requests: every entry up to and including
 * `through_entry_id`, which is older than the summary entry itself. Summaries nest: a later one covers the earlier
 * summary and the entries after it, so only the newest counts.
 */
export interface SummaryRange {
  /** The newest entry the summary replaces. */
  through_entry_id: string;
  /** How many entries it replaces in all, those of the summaries it covers included. */
  entries: number;
  /** Why it was written. */
  reason: CompactionReason;
}

/**
 * `context`: a model call had to leave messages out to fit the context window; `continue_as_new`: the run continued
 * as new with more transcript than it carries; `user`: `arbor compact` or `session.compact()`.
 */
export type CompactionReason = 'context' | 'continue_as_new' | 'user';

/** Input of the `summarizeConversation` activity: the transcript travels as a delta, as `callModel`'s does. */
export interface SummarizeInput {
  session_id: string;
  run_id: string;
  /** The session's model: the summary is written by the worker's summary model if it names one, else by this. */
  model: string;
  reason: CompactionReason;
  /**
   * Characters the entries kept after the summary may fill, from the latest model call's fitting (see
   * `ModelReply.context_fitted`); absent: a share of the session model's window, when the worker knows it.
   */
  keep_chars?: number;
  transcript_start: number;
  transcript_delta: TranscriptEntry[];
}

/** What the activity answers: a summary of the entries through `through_entry_id`, or that there was nothing to summarize. */
export type SummarizeReply =
  { summary: string; through_entry_id: string; entries: number; model: string; usage?: ModelUsage } | { nothing: string };

/** What `session.compact()` answers (the update `compact`). */
export type CompactReceipt = { outcome: 'summarized'; summary_entry_id: string; entries: number } | { outcome: 'failed'; reason: string };

/** Summarizes the conversation between turns. Refused while a turn runs, while a compaction runs, and with nothing to summarize. */
export const compactUpdate = defineUpdate<CompactReceipt, []>('compact');

/**
 * The prompt the summary model is given as its system prompt (quoted in the README). The conversation follows as one
 * user message: the earlier summary, if any, then the entries to fold into it.
 */
export const summaryPrompt = [
  'You write the working memory of an agent whose conversation has grown too long for its context window.',
  'Summarize the conversation below so that the agent can carry on from the summary alone. Keep, in this order:',
  '1. The task as the user gave it, in their words where they matter, and every later instruction, preference or correction from the user.',
  '2. Decisions made and why, including approaches tried and rejected.',
  '3. Facts found: names, paths, identifiers, figures, commands and their results, that later work depends on.',
  '4. What was being done when the conversation stops, and what was to come next.',
  'The todo list, plan, goals and pending questions are kept for the agent separately: do not copy them.',
  'Write plain prose or short lists, in the third person ("the user asked", "the agent found"), in at most 400 words.',
  'Do not invent anything, and do not answer or continue the conversation. If an earlier summary is given, fold it in:',
  'the result replaces it.',
].join('\n');

/** The newest summary entry and the position of the entry it replaces through (-1 when that entry is no longer held). */
export function summaryInEffect(entries: readonly TranscriptEntry[]): { summary: TranscriptEntry; index: number; through: number } | null {
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index]!;
    if (entry.role !== 'summary' || !entry.summary_of) continue;
    const throughId = entry.summary_of.through_entry_id;
    let through = -1;
    for (let at = index - 1; at >= 0; at--) {
      if (entries[at]!.id === throughId) {
        through = at;
        break;
      }
    }
    return { summary: entry, index, through };
  }
  return null;
}

/**
 * The entries the model is shown besides the newest summary (all of them with none): the run's first entry when it is
 * a user message (the session's instruction, which no summary replaces), then those after what the summary replaces.
 * Summaries themselves are left out.
 */
export function entriesAfterSummary(entries: readonly TranscriptEntry[]): TranscriptEntry[] {
  const current = summaryInEffect(entries);
  if (!current) return entries.filter((entry) => entry.role !== 'summary');
  const kept = keptFirstEntries(entries);
  return [...entries.slice(0, kept), ...entries.slice(Math.max(kept, current.through + 1))].filter((entry) => entry.role !== 'summary');
}

/** How many entries at the start of a run no summary replaces: its first, when that is a user message (else none). */
export function keptFirstEntries(entries: readonly TranscriptEntry[]): number {
  return entries[0]?.role === 'user' ? 1 : 0;
}

/** Whether the entry is part of what the model reads (user and assistant messages, tool results). */
export function isConversationEntry(entry: TranscriptEntry): boolean {
  return entry.role === 'user' || entry.role === 'assistant' || entry.role === 'tool';
}
