import type { TranscriptEntry, TranscriptPageRequest, TranscriptRange } from './shared/session.js';

/**
 * Characters of transcript one query answers with. Entries hold up to 200,000 characters (a message) or 1 MB (a model
 * answer), so a whole transcript can pass the 4 MB a gRPC message may carry; pages of this size stay under 2 MB even
 * in three-byte UTF-8, or are a single entry.
 */
export const transcriptPageChars = 500_000;

/** Reads a transcript range with as many bounded queries as it takes. */
export async function readTranscriptPages(
  query: (page: TranscriptPageRequest) => Promise<TranscriptEntry[]>,
  range: TranscriptRange = {},
): Promise<TranscriptEntry[]> {
  const entries: TranscriptEntry[] = [];
  let offset = Math.max(0, range.offset ?? 0);
  for (;;) {
    const remaining = range.limit === undefined ? undefined : range.limit - entries.length;
    if (remaining !== undefined && remaining <= 0) return entries;
    const page = await query({ offset, ...(remaining !== undefined ? { limit: remaining } : {}), max_chars: transcriptPageChars });
    if (page.length === 0) return entries;
    entries.push(...page);
    offset += page.length;
  }
}
