import type { TranscriptEntry } from '../shared/session.js';
import type { SummaryCut } from '../shared/summary-cut.js';

/** The least an entry's text is cut to when the summary request would not fit the summary model's window. */
const minimumEntryChars = 300;

/**
 * The user message of the summary request: the earlier summary, then the entries, within `budget` characters (the
 * summary model's window, when known). Long entries are cut in their middle first; if that is not enough, the oldest
 * entries are left out, and the message says how many.
 */
export function summaryRequestText(cut: SummaryCut, budget: number | undefined): string {
  const head = cut.earlierSummary ? `Earlier summary (fold it in):\n${cut.earlierSummary.content}\n\n` : '';
  const lines = cut.summarized.map(renderEntry);
  const room = budget === undefined ? Infinity : budget - head.length - 200;
  const total = () => lines.reduce((sum, line) => sum + line.length + 1, 0);
  if (total() > room) {
    const cap = Math.max(minimumEntryChars, Math.floor(room / lines.length));
    for (let index = 0; index < lines.length; index++) lines[index] = cutMiddle(lines[index]!, cap);
  }
  let leftOut = 0;
  while (total() > room && lines.length > 1) {
    lines.shift();
    leftOut += 1;
  }
  const note = leftOut > 0 ? `(${leftOut} older entries are left out: they did not fit the summary model's context window.)\n` : '';
  return `${head}Conversation to summarize:\n${note}${lines.join('\n')}`;
}

function renderEntry(entry: TranscriptEntry): string {
  if (entry.role === 'tool')
    return `[tool result${entry.name ? ` of ${entry.name}` : ''}${entry.is_error ? ', an error' : ''}] ${entry.content}`;
  const calls = (entry.tool_calls ?? []).map((call) => ` [calls ${call.name} ${call.arguments}]`).join('');
  return `[${entry.role}] ${entry.content}${calls}`;
}

function cutMiddle(text: string, length: number): string {
  if (text.length <= length) return text;
  const head = Math.floor((length * 2) / 3);
  const tail = length - head;
  return `${text.slice(0, head)} […] ${text.slice(text.length - tail)}`;
}
