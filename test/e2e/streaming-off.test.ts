import { describe, expect, it } from 'vitest';
import { devServerWorkers } from '../support/dev-server-workers.js';

describe('a worker configured not to stream (ARBOR_STREAM=0)', () => {
  const servers = devServerWorkers('sk-stream-off-test', { workerEnv: { ARBOR_STREAM: '0' } });
  const { fake } = servers;

  it('asks the model unstreamed and answers as before, its stream holding only the turn end', async () => {
    fake.streams = true;
    fake.reply({ content: 'Not streamed.' });
    const instruction = 'Answer unstreamed.';
    const session = await servers.client.startSession({ instruction });
    const snapshot = await session.waitUntilIdle({ timeoutMs: 60_000 });

    expect(snapshot.last_message?.content).toBe('Not streamed.');
    expect(fake.requestsFor(instruction).map((request) => request.body.stream ?? false)).toEqual([false]);
    const items = [];
    for await (const item of session.stream({ follow: false })) items.push(item.type);
    expect(items).toEqual(['turn_ended']);
  });
});
