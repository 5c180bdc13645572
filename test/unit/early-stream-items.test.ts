import { defaultPayloadConverter, type LoadedDataConverter, type PayloadCodec } from '@temporalio/common';
import type proto from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { EarlyStreamItems } from '../../src/client/events/early-stream-items.js';
import type { StreamBatch, StreamPage } from '../../src/shared/stream.js';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;
/** Event ids are Longs in the protos; numbers read the same for `Number()`. */
const id = (eventId: number) => eventId as unknown as NonNullable<HistoryEvent['eventId']>;

const converter = (payloadCodecs: PayloadCodec[] = []): LoadedDataConverter =>
  ({ payloadConverter: defaultPayloadConverter, payloadCodecs }) as unknown as LoadedDataConverter;
const origin = { turn: 1, round: 1, attempt: 1 };
const batch = (...texts: string[]): StreamBatch => ({ items: texts.map((text) => ({ type: 'text_delta', text, ...origin })) });
const signal = (eventId: number, sent: StreamBatch, signalName = 'streamDeltas'): HistoryEvent => ({
  eventId: id(eventId),
  workflowExecutionSignaledEventAttributes: { signalName, input: { payloads: [defaultPayloadConverter.toPayload(sent)] } },
});
const taskStarted = (eventId: number): HistoryEvent => ({ eventId: id(eventId), workflowTaskStartedEventAttributes: {} });
const taskCompleted = (eventId: number): HistoryEvent => ({ eventId: id(eventId), workflowTaskCompletedEventAttributes: {} });
const page = (last_pos: number, history_length?: number, run_id = 'run-1'): StreamPage => ({
  items: [],
  last_pos,
  missed: false,
  ...(history_length === undefined ? {} : { history_length, run_id }),
});
const texts = (taken: { items: { type: string; pos: number }[] }) =>
  taken.items.map((item) => [item.pos, 'text' in item ? item.text : item.type]);

describe('numbering recorded stream batches before the workflow takes them', () => {
  it('numbers the batches recorded after the page’s workflow task from its last position, until the next task starts', async () => {
    const early = new EarlyStreamItems('s', converter());
    early.placeAt(page(100, 10), 'run-1');
    const taken = await early.take(
      [
        signal(9, batch('old')),
        taskCompleted(11),
        signal(12, batch('a', 'b')),
        signal(13, batch('c')),
        taskStarted(15),
        signal(16, batch('late')),
      ],
      100,
    );
    expect(texts(taken)).toEqual([
      [101, 'a'],
      [102, 'b'],
      [103, 'c'],
    ]);
    expect(taken.items[0]).toMatchObject({ session_id: 's', ...origin });
    // The page's own task's completion (11) asks no page; the next task's start alone does not either.
    expect(taken.mustRead).toBe(false);
    expect((await early.take([taskCompleted(17)], 103)).mustRead).toBe(true);
  });

  it('yields only positions after the reader’s, and again the same positions when the wake repeats what it knew', async () => {
    const early = new EarlyStreamItems('s', converter());
    early.placeAt(page(100, 10), 'run-1');
    expect(texts(await early.take([signal(12, batch('a', 'b'))], 101))).toEqual([[102, 'b']]);
    expect(texts(await early.take([signal(13, batch('c'))], 102))).toEqual([[103, 'c']]);
    // A later page that has not seen the signals yet numbers them the same.
    early.placeAt(page(100, 10), 'run-1');
    expect(texts(await early.take([], 103))).toEqual([]);
    expect(texts(await early.take([signal(14, batch('d'))], 103))).toEqual([[104, 'd']]);
  });

  it('numbers nothing for a page of a worker without history_length, of another run, or after a batch it cannot decode', async () => {
    const old = new EarlyStreamItems('s', converter());
    old.placeAt(page(100), 'run-1');
    expect(await old.take([signal(12, batch('a'))], 100)).toEqual({ items: [], mustRead: true });

    const otherRun = new EarlyStreamItems('s', converter());
    otherRun.placeAt(page(100, 10, 'run-2'), 'run-1');
    expect(await otherRun.take([signal(12, batch('a'))], 100)).toEqual({ items: [], mustRead: true });

    const failing: PayloadCodec = { encode: async (payloads) => payloads, decode: async () => Promise.reject(new Error('no key')) };
    const keyless = new EarlyStreamItems('s', converter([failing]));
    keyless.placeAt(page(100, 10), 'run-1');
    expect(await keyless.take([signal(12, batch('a')), signal(13, batch('b'))], 100)).toEqual({ items: [], mustRead: false });
  });

  it('counts items as the ring does: other signals, malformed items and long texts in pieces', async () => {
    const early = new EarlyStreamItems('s', converter());
    early.placeAt(page(100, 10), 'run-1');
    const long = 'x'.repeat(25_000);
    const sent = {
      items: [{ type: 'nonsense' }, { type: 'text_delta', text: long, ...origin }, { type: 'retry', turn: 1, round: 1, attempt: 2 }],
    };
    const taken = await early.take([signal(12, batch('other'), 'sendMessage'), signal(13, sent as StreamBatch)], 100);
    expect(taken.items.map((item) => [item.pos, item.type, item.type === 'text_delta' ? item.text.length : 0])).toEqual([
      [101, 'text_delta', 20_000],
      [102, 'text_delta', 5_000],
      [103, 'retry', 0],
    ]);
  });
});
