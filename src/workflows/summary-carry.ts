import { keptFirstEntries, summaryInEffect } from '../shared/compaction.js';
import type { TranscriptEntry } from '../shared/session.js';
import { utf8Length } from '../shared/utf8.js';

/**
 * What a continue-as-new carries of a summarized transcript: the run's first entry if it is a user message (the
 * instruction no summary replaces), then the entries after what the newest summary replaces (the summary among them),
 * cut by `compact` to the bytes the first leaves. The next run reads the summary as replacing everything before it.
 * What follows the first entry is a suffix of the run's entries, so every carried entry keeps its session position.
 * Without a summary, `compact` cuts the transcript as it is.
 */
export function withSummaryKept(
  entries: TranscriptEntry[],
  compact: (entries: TranscriptEntry[], reservedBytes: number) => TranscriptEntry[],
): TranscriptEntry[] {
  const current = summaryInEffect(entries);
  if (!current) return compact(entries, 0);
  const head = entries.slice(0, keptFirstEntries(entries));
  const rest = entries.slice(Math.max(head.length, current.through + 1));
  return [
    ...head,
    ...compact(
      rest,
      head.reduce((bytes, entry) => bytes + utf8Length(entry.content), 0),
    ),
  ];
}
