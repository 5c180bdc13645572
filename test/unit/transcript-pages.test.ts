import { describe, expect, it } from 'vitest';
import type { TranscriptEntry, TranscriptPageRequest } from '../../src/shared/session.js';
import { readTranscriptPages, transcriptPageChars } from '../../src/transcript-pages.js';
import { SessionState } from '../../src/workflows/session-state.js';

/** A session with `count` user messages of `length` characters, and a query that records the pages asked for. */
function session(count: number, length: number) {
  let n = 0;
  const state = new SessionState(
    { session_id: 's', owner: 'default', title: 't', parent_session_id: null, root_session_id: 's', ancestor_session_ids: [], depth: 0, mode: 'async' },
    { now: () => new Date(0), newId: () => `id-${n++}` },
  );
  for (let index = 0; index < count; index++) state.append({ role: 'user', content: `${index} `.padEnd(length, '.') });
  const asked: TranscriptPageRequest[] = [];
  const query = async (page: TranscriptPageRequest): Promise<TranscriptEntry[]> => {
    asked.push(page);
    const entries = state.transcriptRange(page);
    // What gRPC refuses: a message over 4 MB.
    if (JSON.stringify(entries).length > 4 * 1024 * 1024) throw new Error('GRPC Message too large');
    return entries;
  };
  return { state, asked, query };
}

describe('readTranscriptPages', () => {
  it('reads 5 MB of transcript in pages of at most transcriptPageChars, in order, ending on an empty page', async () => {
    const { asked, query } = session(10, 500_000);
    // Asked whole, as before pages, the transcript is too large for one message.
    await expect(query({})).rejects.toThrow('GRPC Message too large');
    asked.length = 0;

    const entries = await readTranscriptPages(query);
    expect(entries.map((entry) => entry.content.split(' ')[0])).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(asked.map((page) => page.offset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(asked.every((page) => page.max_chars === transcriptPageChars)).toBe(true);
  });

  it('reads a range with a limit without asking past it', async () => {
    const { asked, query } = session(30, 100_000);
    const entries = await readTranscriptPages(query, { offset: 5, limit: 12 });
    expect(entries.map((entry) => entry.content.split(' ')[0])).toEqual(['5', '6', '7', '8', '9', '10', '11', '12', '13', '14', '15', '16']);
    // Five 100,000-character entries fill a page; the last page is asked for what is left of the limit.
    expect(asked).toEqual([
      { offset: 5, limit: 12, max_chars: transcriptPageChars },
      { offset: 10, limit: 7, max_chars: transcriptPageChars },
      { offset: 15, limit: 2, max_chars: transcriptPageChars },
    ]);
  });

  it('reads a short transcript in one page and one empty one', async () => {
    const { asked, query } = session(3, 10);
    expect(await readTranscriptPages(query)).toHaveLength(3);
    expect(asked).toHaveLength(2);
  });
});
