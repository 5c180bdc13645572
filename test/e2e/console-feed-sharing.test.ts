/**
 * What a watched tree's feed costs the server and what a late reader sees: one history long poll per member (shared by
 * the feed's event and stream readers, whatever the number of tabs), and a sub-agent's half-written answer whole for a
 * tree stream or feed opened in the middle of it. A streaming model on loopback holds the sub-agent's last chunk.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startConsoleServer, type ConsoleServer } from '../../src/console/server.js';
import { createTestArbor, type TestArbor } from '../../src/testing.js';
import { FakeOpenAI } from '../support/fake-openai.js';
import { waitUntil } from '../support/wait.js';
import { standInConsolePage } from '../support/stand-in-console-page.js';
import { openEventStream } from '../support/event-stream.js';

interface StreamData {
  kind: string;
  session?: { id: string };
  item?: { type: string; text?: string };
}

/** A tab on a tree's feed, as a browser's EventSource reads it, open until closed; `items` are its parsed events. */
function openTab(url: string) {
  const stream = openEventStream(url);
  return {
    get items(): StreamData[] {
      return stream.events.map((event) => JSON.parse(event.data) as StreamData);
    },
    close: stream.close,
  };
}

describe('a watched tree’s feed', () => {
  const fake = new FakeOpenAI();
  let arbor: TestArbor;
  let server: ConsoleServer;
  let release: () => void = () => undefined;

  beforeAll(async () => {
    await fake.start();
    arbor = await createTestArbor({
      model: { baseURL: fake.baseURL, apiKey: 'sk-console-feed', defaultModel: 'streamer', requestTimeoutMs: 60_000 },
      server: { address: inject('temporalAddress') },
      workflowBundlePath: inject('workflowBundlePath'),
      waitTimeoutMs: 45_000,
    });
    const assetsDir = await standInConsolePage();
    server = await startConsoleServer({ client: arbor.client, port: 0, assetsDir });
  });

  afterAll(async () => {
    release();
    await server?.close();
    await arbor?.teardown();
    await fake.stop();
  });

  it('shows a sub-agent’s answer half written before reading began whole, and serves three tabs with one long poll per member', async () => {
    const held = new Promise<void>((resolve) => (release = resolve));
    const words = Array.from({ length: 12 }, (_, index) => `word${index} `);
    const instruction = JSON.stringify({ title: 'Writer', instruction: 'Write slowly.', mode: 'sync' });
    fake.reply(
      { toolCalls: [{ name: 'subAgent', arguments: instruction }] },
      { content: words.join(''), chunks: words, chunkDelayMs: 10, beforeLastChunk: held },
      { content: 'The writer wrote.' },
    );
    const root = await arbor.startSession({ profile: 'all', instruction: 'Delegate the writing.', title: 'Delegator' });
    const child = await waitUntilChild(arbor, root.id);
    // The sub-agent has written all but its last word before any tab opens.
    const writtenBefore = words.slice(0, -1).join('');
    await waitUntil(async () => (await textOf(arbor.client.session(child).stream({ follow: false }))) === writtenBefore, 30_000);

    // A tree stream opened now reads the running sub-agent from the start of its model call, not from its next item.
    const stopLate = new AbortController();
    let lateText = '';
    const late = (async () => {
      const items = arbor.client.session(root.id).streamTree({ from: 'now', runningFrom: 'call', signal: stopLate.signal });
      for await (const { item, session } of items) if (session.id === child && item.type === 'text_delta') lateText += item.text;
    })();
    await waitUntil(() => lateText === writtenBefore, 30_000);
    stopLate.abort();
    await late;

    const feedUrl = new URL(`api/trees/${root.id}/events`, server.url).toString();
    const first = openTab(feedUrl);
    const childText = () =>
      first.items
        .filter((item) => item.kind === 'stream' && item.session?.id === child && item.item?.type === 'text_delta')
        .map((item) => item.item!.text)
        .join('');
    await waitUntil(() => childText() === writtenBefore, 30_000);

    // Each member is read by the feed's event reader and its stream reader: both wait on one long poll.
    const settled = { open: 2, waiting: 4, watched: 2 };
    await waitUntil(() => JSON.stringify(server.feedStats(root.id)?.longPolls) === JSON.stringify(settled), 30_000);
    const second = openTab(feedUrl);
    const third = openTab(feedUrl);
    await waitUntil(() => server.feedStats(root.id)?.tabs === 3, 10_000);
    await waitUntil(() => second.items.length >= first.items.length && third.items.length >= first.items.length, 10_000);
    expect(server.feedStats(root.id)?.longPolls).toEqual(settled);

    release();
    const ended = (id: string) =>
      first.items.some((item) => item.kind === 'stream' && item.item?.type === 'turn_ended' && item.session?.id === id);
    await waitUntil(() => ended(child) && ended(root.id), 30_000);
    expect(childText()).toBe(words.join(''));
    await Promise.all([first.close(), second.close(), third.close()]);
  });
});

async function waitUntilChild(arbor: TestArbor, rootId: string): Promise<string> {
  let child: string | undefined;
  await waitUntil(async () => {
    child = (await arbor.client.session(rootId).snapshot()).children[0]?.sub_session_id;
    return child !== undefined;
  }, 30_000);
  return child!;
}

async function textOf(items: AsyncIterable<{ type: string; text?: string }>): Promise<string> {
  let written = '';
  for await (const item of items) if (item.type === 'text_delta') written += item.text;
  return written;
}
