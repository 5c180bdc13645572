import { devServerWorkers } from '../support/dev-server-workers.js';
import { describe, expect, it } from 'vitest';

describe('a worker killed in the middle of a turn', () => {
  const servers = devServerWorkers('sk-restart-test', { startWorker: false });
  const { fake } = servers;

  it('lets a new worker finish the turn with nothing lost or doubled', async () => {
    const instruction = 'Write a plan, then finish.';
    let secondCallArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (secondCallArrived = resolve));
    fake.reply(
      { toolCalls: [{ name: 'todoWrite', arguments: JSON.stringify({ todos: [{ content: 'Write the plan', status: 'in_progress' }] }) }] },
      // The worker dies while this call waits for the model.
      { content: 'never delivered', delayMs: 120_000 },
      { content: 'Finished after the restart.' },
    );
    const recordedBefore = () => fake.requestsFor(instruction).length;

    await servers.startWorker();
    const session = await servers.client.startSession({ instruction });
    const poll = setInterval(() => {
      if (recordedBefore() >= 2) secondCallArrived();
    }, 50);
    await arrived;
    clearInterval(poll);
    await servers.restartWorker();
    const snapshot = await session.waitUntilIdle({ timeoutMs: 90_000 });

    expect(snapshot.status).toBe('idle');
    expect(snapshot.last_error).toBeNull();
    expect(snapshot.todos).toEqual([{ content: 'Write the plan', status: 'in_progress' }]);
    const transcript = await session.transcript();
    expect(transcript.map((entry) => [entry.role, entry.role === 'assistant' ? entry.content : (entry.name ?? entry.content)])).toEqual([
      ['user', instruction],
      ['assistant', ''],
      ['tool', 'todoWrite'],
      ['assistant', 'Finished after the restart.'],
    ]);
    // The retried call ran on the new worker, which had to rebuild the earlier conversation from the workflow.
    const retried = fake.requestsFor(instruction)[2]!;
    expect(retried.body.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
  }, 150_000);

  it('lets a new worker rebuild a conversation of 4.5 MB, more than one gRPC message carries', async () => {
    const instruction = 'Write five long answers, then finish.';
    const longAnswer = (index: number) => ({
      content: `answer ${index} `.padEnd(900_000, 'é text '),
      toolCalls: [{ name: 'listLoops', arguments: '{}' }],
    });
    fake.reply(
      ...[1, 2, 3, 4, 5].map(longAnswer),
      { content: 'never delivered', delayMs: 120_000 },
      { content: 'Finished after the restart.' },
    );

    // Exactly one worker runs (the one the first test left, or a new one), so the one killed below had the cache.
    await servers.restartWorker();
    const session = await servers.client.startSession({ instruction });
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (fake.requestsFor(instruction).length >= 6) resolve(clearInterval(poll));
      }, 50);
    });
    await servers.restartWorker();
    const snapshot = await session.waitUntilIdle({ timeoutMs: 90_000 });

    expect(snapshot.last_error).toBeNull();
    expect(snapshot.last_message).toMatchObject({ role: 'assistant', content: 'Finished after the restart.' });
    // The new worker had none of the conversation cached: it read all of it from the workflow, in pages.
    const retried = fake.requestsFor(instruction)[6]!;
    const answers = retried.body.messages.filter((message) => message.role === 'assistant').map((message) => message.content);
    expect(answers).toEqual([1, 2, 3, 4, 5].map((index) => longAnswer(index).content));
  }, 150_000);
});
