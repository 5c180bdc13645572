import { describe, expect, it } from 'vitest';
import type { StreamItem } from '../../src/client.js';
import { devServerWorkers } from '../support/dev-server-workers.js';

describe('a worker killed while a reply streams', () => {
  const servers = devServerWorkers('sk-stream-restart-test');
  const { fake } = servers;

  it('ends in one clean answer, and the subscriber is told of the retry before the new attempt writes', async () => {
    const instruction = 'Stream, survive a restart.';
    let firstDeltaRead!: () => void;
    const deltaRead = new Promise<void>((resolve) => (firstDeltaRead = resolve));
    fake.reply(
      // The first attempt writes a little, then hangs until its worker is gone.
      { content: 'lost half', chunks: ['lost ', 'half'], beforeLastChunk: new Promise(() => {}) },
      { content: 'The clean answer.', chunks: ['The ', 'clean ', 'answer.'], chunkDelayMs: 50 },
    );
    const session = await servers.client.startSession({ instruction });
    const items: StreamItem[] = [];
    const reading = (async () => {
      for await (const item of session.stream()) {
        items.push(item);
        if (item.type === 'text_delta') firstDeltaRead();
        if (item.type === 'turn_ended') return;
      }
    })();
    await deltaRead;
    await servers.restartWorker();
    await reading;

    const kinds = items.map((item) => `${item.type}${'attempt' in item ? `@${item.attempt}` : ''}`);
    expect(kinds.filter((kind, index) => kind !== kinds[index - 1])).toEqual(['text_delta@1', 'retry@2', 'text_delta@2', 'turn_ended']);
    const attemptText = (attempt: number) =>
      items.map((item) => (item.type === 'text_delta' && item.attempt === attempt ? item.text : '')).join('');
    expect(attemptText(1)).toBe('lost ');
    expect(attemptText(2)).toBe('The clean answer.');
    const transcript = await session.transcript();
    expect(transcript.map((entry) => [entry.role, entry.content])).toEqual([
      ['user', instruction],
      ['assistant', 'The clean answer.'],
    ]);
  }, 90_000);
});
