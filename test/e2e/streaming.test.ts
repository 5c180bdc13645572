import { describe, expect, it } from 'vitest';
import type { SessionHandle, StreamItem, TreeStreamItem } from '../../src/client.js';
import { streamBatchIntervalMs } from '../../src/shared/stream.js';
import { devServerWorkers } from '../support/dev-server-workers.js';

const words = (count: number, word = 'word') => Array.from({ length: count }, (_, index) => `${word}${index} `);

/** Reads the session's stream until its turn `turn` ends, calling `onItem` with each item as it arrives. */
async function readTurn(session: SessionHandle, turn: number, onItem: (item: StreamItem) => void = () => {}): Promise<StreamItem[]> {
  const items: StreamItem[] = [];
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), 90_000);
  try {
    for await (const item of session.stream({ signal: stop.signal })) {
      items.push(item);
      onItem(item);
      if (item.type === 'turn_ended' && item.turn === turn) break;
    }
  } finally {
    clearTimeout(timer);
  }
  return items;
}

/** The text of a round as a subscriber keeps it: deltas of its newest attempt only. */
function textOf(items: StreamItem[], turn = 1, round = 1): string {
  const deltas = items.filter((item) => item.type === 'text_delta' && item.turn === turn && item.round === round);
  const newest = Math.max(0, ...deltas.map((item) => (item.type === 'text_delta' ? item.attempt : 0)));
  return deltas.map((item) => (item.type === 'text_delta' && item.attempt === newest ? item.text : '')).join('');
}

async function historyOf(servers: ReturnType<typeof devServerWorkers>, sessionId: string) {
  const history = await servers.client.temporal.workflow.getHandle(sessionId).fetchHistory();
  const events = history.events ?? [];
  return { events: events.length, signals: events.filter((event) => event.workflowExecutionSignaledEventAttributes).length };
}

describe('streamed answers on a worker that streams', () => {
  const servers = devServerWorkers('sk-streaming-test');
  const { fake } = servers;

  it('yields the text deltas in order, and the tool calls as they start, while the model is still writing', async () => {
    let releaseLast!: () => void;
    const lastChunk = new Promise<void>((resolve) => (releaseLast = resolve));
    const answer = words(30);
    fake.reply(
      {
        content: 'Planning first.',
        toolCalls: [{ name: 'todoWrite', arguments: JSON.stringify({ todos: [] }) }],
        chunks: ['Planning ', 'first.'],
      },
      { content: answer.join(''), chunks: answer, chunkDelayMs: 20, beforeLastChunk: lastChunk },
    );
    const session = await servers.client.startSession({ instruction: 'Stream a long answer.' });
    let beforeLast: StreamItem[] | undefined;
    const items = await readTurn(session, 1, (item) => {
      // The model has not written its last chunk yet: everything read so far was streamed.
      if (!beforeLast && item.type === 'text_delta' && item.round === 2 && item.text.includes('word28')) {
        beforeLast = [];
        releaseLast();
      }
      if (!beforeLast) return;
      beforeLast.push(item);
    });

    expect(beforeLast, 'text of the second call arrived before its last chunk was written').toBeDefined();
    // Text, then the tool call as it starts, its result, the second call's text, and the turn's end, in that order.
    const kinds = items.map((item) => item.type).filter((type, index, all) => type !== all[index - 1]);
    expect(kinds).toEqual(['text_delta', 'tool_call_started', 'tool_result', 'text_delta', 'turn_ended']);
    expect(items.find((item) => item.type === 'tool_call_started')).toMatchObject({
      type: 'tool_call_started',
      name: 'todoWrite',
      round: 1,
      attempt: 1,
    });
    expect(textOf(items, 1, 1)).toBe('Planning first.');
    expect(textOf(items, 1, 2)).toBe(answer.join(''));
    // Batched: fewer items than chunks, positions growing.
    expect(items.filter((item) => item.type === 'text_delta' && item.round === 2).length).toBeLessThan(answer.length);
    expect(items.map((item) => item.pos)).toEqual([...items.map((item) => item.pos)].sort((a, b) => a - b));
    const transcript = await session.transcript();
    expect(transcript.filter((entry) => entry.role === 'assistant').map((entry) => entry.content)).toEqual([
      'Planning first.',
      answer.join(''),
    ]);
  });

  it('reads a sub-agent from its start as soon as its parent announces it, and ends with `until` once each session is read', async () => {
    let releaseHelper!: () => void;
    const helperLast = new Promise<void>((resolve) => (releaseHelper = resolve));
    fake.reply(
      { toolCalls: [{ name: 'subAgent', arguments: JSON.stringify({ title: 'Helper', instruction: 'Help out.', mode: 'sync' }) }] },
      { content: 'Helper one two', chunks: ['Helper ', 'one ', 'two'], chunkDelayMs: 20, beforeLastChunk: helperLast },
      { content: 'Root done.', chunks: ['Root ', 'done.'] },
    );
    const session = await servers.client.startSession({ instruction: 'Delegate, streaming.' });
    const until = new AbortController();
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), 90_000);
    const seen: TreeStreamItem[] = [];
    try {
      for await (const treeItem of session.streamTree({ from: 0, signal: stop.signal, until: until.signal })) {
        seen.push(treeItem);
        const { item, session: from } = treeItem;
        // The helper's text is read while it is still writing: it was followed as it started, not found afterwards.
        if (from.depth === 1 && item.type === 'text_delta' && item.text.includes('one')) releaseHelper();
        if (from.depth === 0 && item.type === 'turn_ended') until.abort();
      }
    } finally {
      clearTimeout(timer);
      releaseHelper();
    }
    expect(stop.signal.aborted, 'the stream ended by itself after `until`').toBe(false);
    const root = seen.filter((entry) => entry.session.depth === 0).map((entry) => entry.item);
    const helper = seen.filter((entry) => entry.session.depth === 1);
    const announced = root.find((item) => item.type === 'sub_agent_started');
    expect(announced).toMatchObject({ type: 'sub_agent_started', turn: 1, title: 'Helper' });
    expect(helper.every((entry) => entry.session.title === 'Helper' && entry.item.session_id === entry.session.id)).toBe(true);
    expect(helper[0]?.session.id).toBe(announced?.type === 'sub_agent_started' ? announced.sub_session_id : undefined);
    expect(textOf(helper.map((entry) => entry.item))).toBe('Helper one two');
    expect(textOf(root, 1, 2)).toBe('Root done.');
  });

  it('resumes from a position after a reconnect with the items after it, none twice', async () => {
    fake.reply({ content: 'one two three', chunks: ['one ', 'two ', 'three'], chunkDelayMs: 300 });
    const session = await servers.client.startSession({ instruction: 'Stream three words.' });
    const all = await readTurn(session, 1);
    const middle = all[Math.floor(all.length / 2)]!;
    const resumed: StreamItem[] = [];
    for await (const item of session.stream({ from: middle.pos, follow: false })) resumed.push(item);
    expect(resumed).toEqual(all.slice(all.indexOf(middle) + 1));
  });

  it('adds history events by the time a reply streams, not by its chunks: 50 chunks and 5,000 chunks', async () => {
    const counts: { chunks: number; signals: number; events: number; streamedMs: number }[] = [];
    for (const [chunks, delay] of [
      [50, 20],
      [5_000, 0],
    ] as const) {
      const answer = words(chunks, 'w');
      fake.reply({ content: answer.join(''), chunks: answer, chunkDelayMs: delay });
      const instruction = `Stream ${chunks} chunks.`;
      const session = await servers.client.startSession({ instruction });
      const items = await readTurn(session, 1);
      expect(textOf(items)).toBe(answer.join(''));
      const request = fake.requestsFor(instruction)[0]!;
      const streamedMs = Date.now() - request.firstChunkAt!;
      counts.push({ chunks, ...(await historyOf(servers, session.id)), streamedMs });
      expect(await session.transcript()).toHaveLength(2);
    }
    for (const count of counts) {
      // At most one batch per interval, the first at once, and one last flush.
      expect(count.signals).toBeLessThanOrEqual(Math.ceil(count.streamedMs / streamBatchIntervalMs) + 2);
      expect(count.signals).toBeGreaterThanOrEqual(1);
    }
    // Each batch costs a signal and at most one workflow task (three events); the turn itself about a dozen. A loaded
    // machine may stream the 5,000 chunks for longer than the 50, and so in more batches: only those add events.
    const [fifty, fiveThousand] = counts;
    const moreBatches = Math.max(0, fiveThousand!.signals - fifty!.signals);
    expect(fiveThousand!.events).toBeLessThanOrEqual(fifty!.events + 4 * moreBatches + 8);
    expect(fiveThousand!.events).toBeLessThan(fiveThousand!.chunks / 10);
  });

  it('still answers when the endpoint answers a streamed request with a plain JSON body', async () => {
    fake.reply({ content: 'A plain body.' });
    const session = await servers.client.startSession({ instruction: 'Answer with a plain body.' });
    const items = await readTurn(session, 1);
    expect(items.map((item) => item.type)).toEqual(['turn_ended']);
    expect((await session.snapshot()).last_message?.content).toBe('A plain body.');
    expect(fake.requestsFor('Answer with a plain body.').map((request) => request.body.stream)).toEqual([true]);
  });

  // Last: the worker then asks this model unstreamed for good.
  it('still answers when the endpoint refuses stream, asking it unstreamed', async () => {
    fake.refusesStreaming = true;
    try {
      fake.reply({ content: 'Answered without streaming.' });
      const session = await servers.client.startSession({ instruction: 'Answer without streaming.' });
      const snapshot = await session.waitUntilIdle({ timeoutMs: 60_000 });
      expect(snapshot.last_message?.content).toBe('Answered without streaming.');
      expect(fake.requestsFor('Answer without streaming.').map((request) => request.body.stream ?? false)).toEqual([true, false]);
    } finally {
      fake.refusesStreaming = false;
    }
  });
});
