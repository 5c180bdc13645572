import type { TranscriptEntry } from '../shared/session.js';

/** One transcript entry as `arbor show --transcript` prints it; a summary says how much it replaces. */
export function transcriptLine(entry: TranscriptEntry): string {
  if (entry.role === 'summary' && entry.summary_of) {
    const { entries, reason } = entry.summary_of;
    return `  [summary of ${entries} earlier entries, ${reasonText[reason]}] ${entry.content}`;
  }
  return `  [${entry.role}${entry.name ? ` ${entry.name}` : ''}] ${entry.content}`;
}

const reasonText: Record<NonNullable<TranscriptEntry['summary_of']>['reason'], string> = {
  context: 'to fit the context window',
  continue_as_new: 'as the session continued as new',
  user: 'asked for by the user',
};
