import { describe, expect, it } from 'vitest';
import type { TranscriptEntry, TranscriptPage, TranscriptPageRequest } from '../../src/shared/session.js';
import { readSessionTranscript, readTranscriptPages, transcriptPageChars } from '../../src/client/access/transcript-pages.js';
import { SessionState } from '../../src/workflows/session-state.js';
import { carriedTranscriptBytes } from '../../src/workflows/transcript.js';

const identity = {
  session_id: 's',
  owner: 'default',
  title: 't',
  parent_session_id: null,
  root_session_id: 's',
  ancestor_session_ids: [],
  depth: 0,
  mode: 'async' as const,
};

function newState(carried?: ReturnType<SessionState['carry']>) {
  let n = 0;
  return new SessionState(identity, { now: () => new Date(0), newId: () => `id-${n++}-${Math.random()}` }, carried);
}

const numbers = (entries: TranscriptEntry[]) => entries.map((entry) => entry.content.split(' ')[0]);

/** A session with `count` user messages of `length` characters, and a query that records the pages asked for. */
function session(count: number, length: number) {
  const state = newState();
  for (let index = 0; index < count; index++) state.append({ role: 'user', content: `${index} `.padEnd(length, '.') });
  const asked: TranscriptPageRequest[] = [];
  const query = async (page: TranscriptPageRequest): Promise<TranscriptEntry[]> => {
    asked.push(page);
    const entries = state.transcript.range(page);
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
    expect(entries.map((entry) => entry.content.split(' ')[0])).toEqual([
      '5',
      '6',
      '7',
      '8',
      '9',
      '10',
      '11',
      '12',
      '13',
      '14',
      '15',
      '16',
    ]);
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

describe("the session's transcript positions across continue-as-new", () => {
  /** A session of `count` messages of 300,000 characters: more than a continue-as-new carries. */
  function longSession(count: number) {
    const state = newState();
    for (let index = 0; index < count; index++) state.append({ role: 'user', content: `${index} `.padEnd(300_000, '.') });
    return state;
  }

  it('keeps message_count and every held entry at the same position when a continue-as-new compacts the transcript', () => {
    const before = longSession(8);
    const next = newState(before.carry());
    // The next run holds a notice and the newest messages that fit, not all eight.
    expect(next.transcript.range()).toHaveLength(1 + Math.floor(carriedTranscriptBytes / 300_000));
    expect(next.snapshot().message_count).toBe(8);
    expect(numbers(next.transcript.page({ offset: 6 }, 'run-2').entries)).toEqual(['6', '7']);
    expect(next.transcript.page({ offset: 6 }, 'run-2')).toMatchObject({ offset: 6, total: 8, run_id: 'run-2' });
    // Positions compacted away read from the oldest entry still held: the notice of what was left behind.
    const fromStart = next.transcript.page({ offset: 0, max_chars: 10 }, 'run-2');
    expect(fromStart.offset).toBe(4);
    expect(fromStart.entries[0]).toMatchObject({ role: 'notice' });
    expect(fromStart.entries[0]!.content).toMatch(/^5 earlier transcript entries were compacted away/);

    // A second continue-as-new adds to the first.
    for (let index = 8; index < 10; index++) next.append({ role: 'user', content: `${index} `.padEnd(300_000, '.') });
    const third = newState(next.carry());
    expect(third.snapshot().message_count).toBe(10);
    expect(numbers(third.transcript.page({ offset: 9 }, 'run-3').entries)).toEqual(['9']);
  });

  it('reads the later pages of one read from the run that answered the first, and stops at the total without an empty page', async () => {
    const state = longSession(3);
    const asked: Array<{ page: TranscriptPageRequest; runId: string | undefined }> = [];
    const query = async (page: TranscriptPageRequest, runId: string | undefined): Promise<TranscriptPage> => {
      asked.push({ page, runId });
      return state.transcript.page(page, 'run-1');
    };
    expect(numbers(await readSessionTranscript(query))).toEqual(['0', '1', '2']);
    expect(asked.map((call) => [call.page.offset, call.runId])).toEqual([
      [0, undefined],
      [1, 'run-1'],
      [2, 'run-1'],
    ]);
  });

  it('continues from where a page says it starts when the positions asked for were compacted away', async () => {
    const next = newState(longSession(8).carry());
    const entries = await readSessionTranscript(async (page) => next.transcript.page(page, 'run-2'), { offset: 1 });
    expect(entries.map((entry) => entry.role)).toEqual(['notice', 'user', 'user', 'user']);
    expect(numbers(entries.slice(1))).toEqual(['5', '6', '7']);
  });
});
