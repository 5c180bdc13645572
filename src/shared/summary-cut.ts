import { isConversationEntry, keptFirstEntries, summaryInEffect, type CompactionReason } from './compaction.js';
import type { TranscriptEntry } from './session.js';

/** What a summary replaces: the entries from after the earlier summary up to (not including) `keepFrom`. */
export interface SummaryCut {
  earlierSummary: TranscriptEntry | undefined;
  /** The entries to fold into the summary, oldest first (people's notices and errors left out). */
  summarized: TranscriptEntry[];
  through: TranscriptEntry;
  /** How many entries the new summary replaces in all. */
  entries: number;
}

/**
 * Where to cut a run's transcript (after its first entry when that is a user message, which stays: see
 * `entriesAfterSummary`): always at a user message, so that no tool result is kept without its call. Asked by
 * the user, or with no room known, everything before the newest user message is summarized; otherwise the newest turns
 * that fit in `keepChars` characters are kept, and the rest summarized. Null: nothing to summarize.
 */
export function summaryCut(
  entries: readonly TranscriptEntry[],
  reason: CompactionReason,
  keepChars: number | undefined,
): SummaryCut | null {
  const current = summaryInEffect(entries);
  const start = Math.max(keptFirstEntries(entries), current ? current.through + 1 : 0);
  const userAt = (index: number) => entries[index]!.role === 'user';
  let keepFrom = -1;
  for (let index = entries.length - 1; index >= start; index--) {
    if (userAt(index)) {
      keepFrom = index;
      break;
    }
  }
  if (keepFrom === -1) return null;
  if (reason !== 'user' && keepChars !== undefined) {
    let size = 0;
    for (let index = entries.length - 1; index >= start; index--) {
      size += entryChars(entries[index]!);
      if (size > keepChars) break;
      if (userAt(index)) keepFrom = index;
    }
  }
  const summarized = entries.slice(start, keepFrom).filter(isConversationEntry);
  if (summarized.length === 0) return null;
  const replaced = entries.slice(start, keepFrom).filter((entry) => entry.role !== 'summary').length;
  return {
    earlierSummary: current?.summary,
    summarized,
    through: entries[keepFrom - 1]!,
    entries: replaced + (current?.summary.summary_of?.entries ?? 0),
  };
}

function entryChars(entry: TranscriptEntry): number {
  let chars = 20 + entry.content.length;
  for (const call of entry.tool_calls ?? []) chars += call.name.length + call.arguments.length + 20;
  return chars;
}
