import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArborClient, type SessionHandle, type StreamItem } from '../../src/client.js';
import { parseEncryptionKeys } from '../../src/codec/encryption-keys.js';
import { streamDeltasSignal } from '../../src/shared/messages.js';
import { devServerSettings } from '../support/connection.js';
import { FakeOpenAI } from '../support/fake-openai.js';
import { ScriptedModel } from '../support/scripted-model.js';
import { restartableWorker } from '../support/restartable-worker.js';

/** A reader of a session's stream that keeps what it yields and lets a test wait for an item. */
function liveReader(session: SessionHandle, from = 0) {
  const items: StreamItem[] = [];
  const stop = new AbortController();
  const waiters: { test: (item: StreamItem) => boolean; resolve: (item: StreamItem) => void }[] = [];
  const done = (async () => {
    for await (const item of session.stream({ from, signal: stop.signal })) {
      items.push(item);
      for (const waiter of waiters.splice(0))
        if (waiter.test(item)) waiter.resolve(item);
        else waiters.push(waiter);
    }
  })();
  const waitFor = (test: (item: StreamItem) => boolean, what: string) =>
    new Promise<StreamItem>((resolve, reject) => {
      const found = items.find(test);
      if (found) return resolve(found);
      const timer = setTimeout(() => reject(new Error(`no stream item: ${what}`)), 30_000);
      waiters.push({ test, resolve: (item) => (clearTimeout(timer), resolve(item)) });
    });
  return { items, waitFor, stop: () => (stop.abort(), done) };
}

/** Every item the ring holds after `from`, read by query only (no following). */
async function ringItems(session: SessionHandle, from = 0): Promise<StreamItem[]> {
  const items: StreamItem[] = [];
  for await (const item of session.stream({ from, follow: false })) items.push(item);
  return items;
}

describe('stream items yielded from the history before the workflow takes them (encrypted payloads, in-process worker)', () => {
  const fake = new FakeOpenAI();
  const model = new ScriptedModel(fake);
  const settings = { ...devServerSettings(), encryptionKeys: parseEncryptionKeys(`k1:${randomBytes(32).toString('base64')}`) };
  let client: ArborClient;
  const worker = restartableWorker('sk-stream-early', fake);
  const startWorker = () => worker.start(settings);
  const stopWorker = worker.stop;

  beforeAll(async () => {
    await fake.start();
    client = await ArborClient.fromSettings(settings);
    await startWorker();
  });

  afterAll(async () => {
    await stopWorker();
    await client?.close();
    await fake.stop();
  });

  it('gives every item of a streamed turn once, in the ring’s order, with the ring’s positions', async () => {
    const answer = Array.from({ length: 12 }, (_, index) => `word${index} `);
    model.script('Stream a dozen words.', { content: answer.join(''), chunks: answer, chunkDelayMs: 60 });
    const session = await client.startSession({ instruction: 'Stream a dozen words.' });
    const reader = liveReader(session);
    await reader.waitFor((item) => item.type === 'turn_ended' && item.turn === 1, 'the end of turn 1');
    await reader.stop();

    expect(reader.items).toEqual(await ringItems(session));
    const text = reader.items.map((item) => (item.type === 'text_delta' ? item.text : '')).join('');
    expect(text).toBe(answer.join(''));
    expect(reader.items.filter((item) => item.type === 'text_delta').length).toBeGreaterThan(1);
  });

  it('yields a recorded batch while no worker runs the session, with the position the ring gives it later, and a resume from that position reads nothing twice', async () => {
    model.script('Say hello.', { content: 'Hello.' });
    const session = await client.startSession({ instruction: 'Say hello.' });
    await session.waitUntilIdle({ timeoutMs: 60_000 });
    const reader = liveReader(session);
    await reader.waitFor((item) => item.type === 'turn_ended', 'the end of turn 1');
    const lastBefore = reader.items.at(-1)!;

    await stopWorker();
    try {
      // What a retried model call's activity sends: its retry notice, then text. No worker runs the session now.
      const origin = { turn: 2, round: 1, attempt: 2 };
      await client.temporal.workflow.getHandle(session.id).signal(streamDeltasSignal, {
        items: [{ type: 'retry', ...origin }, { type: 'text_delta', text: 'early words', ...origin }, { type: 'nonsense' } as never],
      });
      const early = await reader.waitFor((item) => item.type === 'text_delta' && item.text === 'early words', 'the early text');
      const retry = reader.items.find((item) => item.type === 'retry')!;
      expect(retry.pos).toBe(lastBefore.pos + 1);
      expect(early.pos).toBe(lastBefore.pos + 2);
      expect(early).toMatchObject({ session_id: session.id, ...origin });
      // The signal was recorded encrypted: the reader decoded it through the client's codec.
      const raw = (await client.temporal.workflow.getHandle(session.id).fetchHistory()).events ?? [];
      const recorded = raw.filter((event) => event.workflowExecutionSignaledEventAttributes?.signalName === streamDeltasSignal.name);
      const payload = recorded.at(-1)!.workflowExecutionSignaledEventAttributes!.input!.payloads![0]!;
      expect(Buffer.from(payload.data!).toString('latin1')).not.toContain('early words');
    } finally {
      await startWorker();
    }

    // The worker takes the batch: the ring holds the same items at the same positions, and nothing else.
    const held = await ringItems(session, lastBefore.pos);
    expect(held).toEqual(reader.items.slice(reader.items.indexOf(lastBefore) + 1));
    expect(held.map((item) => item.type)).toEqual(['retry', 'text_delta']);
    const early = held[1]!;
    expect(await ringItems(session, early.pos)).toEqual([]);

    // A turn after it: the reader goes on after the early items, none twice, none missed.
    model.script('Say hello.', { content: 'Again.', chunks: ['Aga', 'in.'], chunkDelayMs: 30 });
    await session.send('Once more.');
    await reader.waitFor((item) => item.type === 'turn_ended' && item.turn === 2, 'the end of turn 2');
    const resumed = liveReader(session, early.pos);
    await resumed.waitFor((item) => item.type === 'turn_ended' && item.turn === 2, 'the end of turn 2, resumed');
    await Promise.all([reader.stop(), resumed.stop()]);
    expect(reader.items).toEqual(await ringItems(session));
    expect(resumed.items).toEqual(reader.items.slice(reader.items.indexOf(reader.items.find((item) => item.pos === early.pos)!) + 1));
  });

  it('keeps an interrupted turn’s items, its turn_interrupted among them, in the ring’s order with the ring’s positions', async () => {
    const held = Array.from({ length: 6 }, (_, index) => `slow${index} `);
    model.script(
      'Write slowly.',
      { content: held.join(''), chunks: held, chunkDelayMs: 40, beforeLastChunk: new Promise(() => {}) },
      { content: 'Short version.', chunks: ['Short ', 'version.'], chunkDelayMs: 30 },
    );
    const session = await client.startSession({ instruction: 'Write slowly.' });
    const reader = liveReader(session);
    await reader.waitFor((item) => item.type === 'text_delta' && item.text.includes('slow4'), 'most of the slow text');
    await session.send('Stop; the short version.', { mode: 'interrupt' });
    await reader.waitFor((item) => item.type === 'turn_ended' && item.turn === 2, 'the end of turn 2');
    await reader.stop();

    expect(reader.items).toEqual(await ringItems(session));
    const kinds = reader.items.map((item) => item.type).filter((type, index, all) => type !== all[index - 1]);
    expect(kinds.slice(0, 3)).toEqual(['text_delta', 'turn_interrupted', 'turn_ended']);
    expect(kinds.at(-1)).toBe('turn_ended');
  });
});
