import type { TranscriptEntry, TranscriptPage, TranscriptPageRequest, TranscriptRange } from '../../shared/session.js';

/**
 * Characters of transcript one query answers with. Entries hold up to 200,000 characters (a message) or 1 MB (a model
 * answer), so a whole transcript can pass the 4 MB a gRPC message may carry; pages of this size stay under 2 MB even
 * in three-byte UTF-8, or are a single entry.
 */
export const transcriptPageChars = 500_000;

/**
 * Reads a range of one run's transcript by that run's positions (the `transcript` query) with as many bounded queries
 * as it takes, ending on an empty page.
 */
export function readTranscriptPages(
  query: (page: TranscriptPageRequest) => Promise<TranscriptEntry[]>,
  range: TranscriptRange = {},
): Promise<TranscriptEntry[]> {
  return readSessionTranscript(
    async (page) => ({ entries: await query(page), offset: page.offset ?? 0, total: Infinity, run_id: '' }),
    range,
  );
}

/**
 * Reads a range of a session's transcript by the session's positions, in bounded pages. The first page is asked of the
 * session's current run, the later ones of the run that answered it (`runId`), so the entries all come from one run.
 */
export async function readSessionTranscript(
  query: (page: TranscriptPageRequest, runId: string | undefined) => Promise<TranscriptPage>,
  range: TranscriptRange = {},
): Promise<TranscriptEntry[]> {
  const entries: TranscriptEntry[] = [];
  let offset = Math.max(0, range.offset ?? 0);
  let runId: string | undefined;
  for (;;) {
    const remaining = range.limit === undefined ? undefined : range.limit - entries.length;
    if (remaining !== undefined && remaining <= 0) return entries;
    const page = await query({ offset, ...(remaining !== undefined ? { limit: remaining } : {}), max_chars: transcriptPageChars }, runId);
    runId ||= page.run_id;
    entries.push(...page.entries);
    offset = page.offset + page.entries.length;
    if (page.entries.length === 0 || offset >= page.total) return entries;
  }
}
