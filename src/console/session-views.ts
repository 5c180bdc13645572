import type { TranscriptEntry } from '../shared/session.js';

const planWriters = new Set(['planWrite', 'plan_write']);

/**
 * The session's plan as its latest accepted plan write stored it (the SDK has no plan query; the transcript holds
 * each call's arguments and whether the tool refused it). Null when it wrote none.
 */
export function planOf(entries: readonly TranscriptEntry[]): { title: string | null; content: string } | null {
  const refused = new Set(entries.filter((entry) => entry.role === 'tool' && entry.is_error).map((entry) => entry.tool_call_id));
  for (let index = entries.length - 1; index >= 0; index -= 1) {
    const calls = entries[index]!.tool_calls ?? [];
    for (let call = calls.length - 1; call >= 0; call -= 1) {
      const candidate = calls[call]!;
      if (!planWriters.has(candidate.name) || refused.has(candidate.id)) continue;
      try {
        const parsed = JSON.parse(candidate.arguments) as { content?: unknown; title?: unknown };
        if (typeof parsed.content === 'string')
          return { title: typeof parsed.title === 'string' ? parsed.title : null, content: parsed.content };
      } catch {
        // A malformed call was refused by the tool; look further back.
      }
    }
  }
  return null;
}
