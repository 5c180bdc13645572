import { describe, expect, it } from 'vitest';
import { entryLabel } from '../../console-page/src/entry-label.js';
import type { TranscriptEntry } from '../../src/shared/session.js';

const entry = (fields: Partial<TranscriptEntry>): TranscriptEntry => ({ id: 'e', role: 'user', content: '', created_at: '', ...fields });

describe("the console page's label of a conversation entry", () => {
  it('marks a summary with how many earlier entries it replaces and why it was written', () => {
    const summary = (entries: number, reason: 'context' | 'continue_as_new' | 'user') =>
      entryLabel(entry({ role: 'summary', summary_of: { through_entry_id: 'e9', entries, reason } }));
    expect(summary(12, 'user')).toBe('Summary of 12 earlier entries, written on request');
    expect(summary(1, 'context')).toBe('Summary of 1 earlier entry, written to fit the context window');
    expect(summary(40, 'continue_as_new')).toBe('Summary of 40 earlier entries, written as the session continued as new');
    expect(entryLabel(entry({ role: 'summary' }))).toBe('Summary of earlier entries');
  });

  it('names a tool entry by its tool and any other by its role', () => {
    expect(entryLabel(entry({ role: 'tool', name: 'webSearch' }))).toBe('tool webSearch');
    expect(entryLabel(entry({ role: 'assistant' }))).toBe('assistant');
  });
});
