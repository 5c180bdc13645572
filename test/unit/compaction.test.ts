import { describe, expect, it } from 'vitest';
import { toChatMessages } from '../../src/activities/chat-messages.js';
import { modelSettingsFromEnv } from '../../src/activities/model-settings.js';
import { summaryRequestText } from '../../src/activities/summary-request.js';
import { summaryCut } from '../../src/shared/summary-cut.js';
import type { TranscriptEntry } from '../../src/shared/session.js';
import { withSummaryKept } from '../../src/workflows/summary-carry.js';

let n = 0;
function entry(role: TranscriptEntry['role'], content: string, extra: Partial<TranscriptEntry> = {}): TranscriptEntry {
  return { id: `e${n++}`, role, content, created_at: '2026-12-02T02:00:00.000Z', ...extra };
}

function turns(count: number): TranscriptEntry[] {
  return Array.from({ length: count }, (_, index) => [entry('user', `question ${index}`), entry('assistant', `answer ${index}`)]).flat();
}

function summary(content: string, through: TranscriptEntry, entries: number): TranscriptEntry {
  return entry('summary', content, { summary_of: { through_entry_id: through.id, entries, reason: 'context' } });
}

describe('where a summary cuts the transcript', () => {
  it('summarizes everything between the instruction and the newest user message when the user asks, and nothing when only that turn is left', () => {
    const transcript = turns(5);
    const cut = summaryCut(transcript, 'user', undefined)!;
    expect(cut.summarized.map((item) => item.content)).toEqual(transcript.slice(1, 8).map((item) => item.content));
    expect(cut.through).toBe(transcript[7]);
    expect(cut.entries).toBe(7);
    const summarized = [...transcript, summary('S', transcript[7]!, 7)];
    expect(summaryCut(summarized, 'user', undefined)).toBeNull();
  });

  it('keeps the newest turns that fit the room given, cutting only at a user message', () => {
    const transcript = turns(10);
    const oneTurn = 20 + 'question 9'.length + 20 + 'answer 9'.length;
    const cut = summaryCut(transcript, 'context', oneTurn * 3 + 1)!;
    expect(cut.through).toBe(transcript[13]);
    expect(transcript[14]!.role).toBe('user');
  });

  it('nests: a later summary covers the earlier one and the entries after it, and counts what both replace', () => {
    const transcript = turns(4);
    const first = summary('FIRST', transcript[3]!, 4);
    const later = [...transcript, first, ...turns(3)];
    const cut = summaryCut(later, 'user', undefined)!;
    expect(cut.earlierSummary).toBe(first);
    expect(cut.summarized.map((item) => item.content)).toEqual(
      [
        'question 0',
        'answer 0',
        'question 1',
        'answer 1',
        'question 2',
        'answer 2',
        'question 3',
        'answer 3',
        'question 0',
        'answer 0',
        'question 1',
        'answer 1',
      ].slice(4),
    );
    expect(cut.entries).toBe(4 + 4 + 4);
    expect(summaryRequestText(cut, undefined)).toMatch(
      /^Earlier summary \(fold it in\):\nFIRST\n\nConversation to summarize:\n\[user\] question 2\n/,
    );
  });

  it('fits the summary request to the summary model by cutting long entries, then leaving the oldest out and saying so', () => {
    const transcript = [...turns(200), entry('user', 'now')];
    transcript[0] = entry('user', `long ${'x'.repeat(5_000)}`);
    const text = summaryRequestText(summaryCut(transcript, 'user', undefined)!, 3_000);
    expect(text.length).toBeLessThanOrEqual(3_000);
    expect(text).toMatch(/older entries are left out: they did not fit the summary model's context window/);
    expect(text).toContain('[assistant] answer 199');
  });
});

describe("the model's view of a summarized transcript", () => {
  it('puts the newest summary and the pinned state in the system prompt and sends the instruction and the entries after what it replaces', () => {
    const transcript = turns(3);
    const first = summary('FIRST', transcript[1]!, 2);
    const second = summary('SECOND', transcript[3]!, 4);
    const all = [...transcript.slice(0, 4), first, second, ...transcript.slice(4)];
    const messages = toChatMessages('sys', all, '## The session now\n- [pending] Write tests');
    expect(messages[0]).toEqual({
      role: 'system',
      content: 'sys\n\n## Summary of the earlier conversation\nSECOND\n\n## The session now\n- [pending] Write tests',
    });
    expect(messages.slice(1)).toEqual([
      { role: 'user', content: 'question 0' },
      { role: 'user', content: 'question 2' },
      { role: 'assistant', content: 'answer 2' },
    ]);
  });

  it('is unchanged for a transcript without a summary', () => {
    const transcript = turns(2);
    expect(toChatMessages('sys', transcript)).toHaveLength(5);
  });
});

describe('what a continue-as-new carries of a summarized transcript', () => {
  it('carries the instruction, then the entries after what the newest summary replaces, as a suffix that keeps its positions', () => {
    const transcript = turns(4);
    const first = summary('FIRST', transcript[1]!, 2);
    const second = summary('SECOND', transcript[3]!, 4);
    const all = [...transcript.slice(0, 4), first, ...transcript.slice(4, 6), second, ...transcript.slice(6)];
    let room = -1;
    const carried = withSummaryKept(all, (rest, reservedBytes) => ((room = reservedBytes), rest));
    expect(room).toBe('question 0'.length);
    expect(carried).toEqual([all[0], ...all.slice(4)]);
    // Read again in the next run, the newest summary still replaces everything before it.
    expect(toChatMessages('', carried).map((message) => message.content)).toEqual([
      '## Summary of the earlier conversation\nSECOND',
      'question 0',
      'question 2',
      'answer 2',
      'question 3',
      'answer 3',
    ]);
  });
});

describe("the worker's summary settings", () => {
  it('read the summary model from ARBOR_SUMMARY_MODEL and turn summaries off with ARBOR_SUMMARIES=off', () => {
    expect(modelSettingsFromEnv({ ARBOR_SUMMARY_MODEL: ' small-model ' })).toMatchObject({ summaryModel: 'small-model' });
    expect(modelSettingsFromEnv({})).not.toHaveProperty('summaryModel');
    expect(modelSettingsFromEnv({ ARBOR_SUMMARIES: 'off' }).summaries).toBe(false);
    expect(modelSettingsFromEnv({ ARBOR_SUMMARIES: 'on' })).not.toHaveProperty('summaries');
  });
});
