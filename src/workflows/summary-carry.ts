import { summaryInEffect } from '../shared/compaction.js';
import type { TranscriptEntry } from '../shared/session.js';
import { utf8Length } from '../shared/utf8.js';

/**
 * What a continue-as-new carries of a summarized transcript: the newest summary first, then the entries after what it
 * replaces (earlier summaries left out), cut by `compact` to the bytes the summary leaves. The next run reads the
 * summary as replacing everything before it. Without a summary, `compact` cuts the transcript as it is.
 */
export function withSummaryFirst(
  entries: TranscriptEntry[],
  compact: (entries: TranscriptEntry[], summaryBytes: number) => TranscriptEntry[],
): TranscriptEntry[] {
  const current = summaryInEffect(entries);
  if (!current) return compact(entries, 0);
  const rest = entries.slice(current.through + 1).filter((entry) => entry.role !== 'summary');
  return [current.summary, ...compact(rest, utf8Length(current.summary.content))];
}
