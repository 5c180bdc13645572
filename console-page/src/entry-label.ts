import type { TranscriptEntry } from '../../src/shared/session.js';

const summaryReasons = {
  context: 'to fit the context window',
  continue_as_new: 'as the session continued as new',
  user: 'on request',
} as const;

/** What an entry of a conversation is, in a few words: its role, the tool it answers, or what a summary replaces. */
export function entryLabel(entry: TranscriptEntry): string {
  if (entry.role === 'tool') return `tool ${entry.name ?? ''}`.trim();
  if (entry.role !== 'summary') return entry.role;
  const range = entry.summary_of;
  if (!range) return 'Summary of earlier entries';
  const count = `Summary of ${range.entries} earlier ${range.entries === 1 ? 'entry' : 'entries'}`;
  const reason = summaryReasons[range.reason] as string | undefined;
  return reason ? `${count}, written ${reason}` : count;
}
