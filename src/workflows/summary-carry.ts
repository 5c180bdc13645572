import { keptFirstEntries, summaryInEffect } from '../shared/compaction.js';
import type { TranscriptEntry } from '../shared/session.js';
import { utf8Length } from '../shared/utf8.js';

/**
 * What a continue-as-new carries of a summarized transcript: the run's first entry if it is a user message (the
 * instruction no summary replaces), the newest summary, then the entries after what it replaces (earlier summaries
 * left out), cut by `compact` to the bytes the two leave. The next run reads the
 * summary as replacing everything before it. Without a summary, `compact` cuts the transcript as it is.
 */
export function withSummaryFirst(
  entries: TranscriptEntry[],
  compact: (entries: TranscriptEntry[], summaryBytes: number) => TranscriptEntry[],
): TranscriptEntry[] {
  const current = summaryInEffect(entries);
  if (!current) return compact(entries, 0);
  const head = entries.slice(0, keptFirstEntries(entries));
  const rest = entries.slice(Math.max(head.length, current.through + 1)).filter((entry) => entry.role !== 'summary');
  const headBytes = head.reduce((bytes, entry) => bytes + utf8Length(entry.content), 0);
  return [...head, current.summary, ...compact(rest, headBytes + utf8Length(current.summary.content))];
}
