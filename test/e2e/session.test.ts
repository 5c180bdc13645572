import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArborClient } from '../../src/client.js';
import type { ConnectionSettings } from '../../src/client/connection.js';
import { statusKey, titleKey, rootSessionIdKey } from '../../src/shared/search-attributes.js';
import { createArborWorker, type ArborWorker } from '../../src/worker.js';
import { devServerSettings } from '../support/connection.js';
import { FakeOpenAI } from '../support/fake-openai.js';

const apiKey = 'sk-arbor-test-secret-7f3a9c';

describe('a session on the dev server with an OpenAI-compatible model', () => {
  const fake = new FakeOpenAI();
  let settings: ConnectionSettings;
  let worker: ArborWorker;
  let running: Promise<void>;
  let client: ArborClient;

  beforeAll(async () => {
    await fake.start();
    settings = devServerSettings();
    worker = await createArborWorker({
      connection: settings,
      model: { apiKey, baseURL: fake.baseURL, defaultModel: 'fake-model', requestTimeoutMs: 10_000 },
    });
    running = worker.run();
    client = await ArborClient.fromSettings(settings);
  });

  afterAll(async () => {
    await client?.close();
    worker?.shutdown();
    await running;
    await fake.stop();
  });

  it('holds a two-turn conversation, sending the earlier turns to the model', async () => {
    const instruction = 'Name a prime number.';
    fake.reply({ content: 'Seven.' }, { content: 'Eleven comes after seven.' });
    const session = await client.startSession({ instruction, title: 'Primes' });
    const first = await session.waitUntilIdle({ timeoutMs: 30_000 });
    expect(first.status).toBe('idle');
    expect(first.last_message).toMatchObject({ role: 'assistant', content: 'Seven.' });

    const messageId = await session.send('And the next one?');
    const second = await session.waitUntilIdle({ messageId, timeoutMs: 30_000 });
    expect(second).toMatchObject({
      status: 'idle',
      turn: 2,
      message_count: 4,
      title: 'Primes',
      session_id: session.id,
      root_session_id: session.id,
      parent_session_id: null,
    });
    expect(second.last_message).toMatchObject({ role: 'assistant', content: 'Eleven comes after seven.' });

    const requests = fake.requestsFor(instruction);
    expect(requests).toHaveLength(2);
    expect(requests[0]!.headers.authorization).toBe(`Bearer ${apiKey}`);
    expect(requests[0]!.body.model).toBe('fake-model');
    expect(requests[0]!.body.tools?.map((tool) => tool.function.name)).toContain('todoWrite');
    expect(requests[1]!.body.messages.map((message) => [message.role, message.content])).toEqual([
      ['system', expect.any(String)],
      ['user', instruction],
      ['assistant', 'Seven.'],
      ['user', 'And the next one?'],
    ]);
  });

  it('returns a malformed tool call to the model as a tool error and finishes the turn', async () => {
    const instruction = 'Plan the release.';
    fake.reply(
      { toolCalls: [{ name: 'todoWrite', arguments: '{"todos": [ {"content": "x", ' }] },
      { toolCalls: [{ name: 'noSuchTool', arguments: '{}' }] },
      { content: 'Planned, after fixing my calls.' },
    );
    const session = await client.startSession({ instruction });
    const snapshot = await session.waitUntilIdle({ timeoutMs: 30_000 });
    expect(snapshot.status).toBe('idle');
    expect(snapshot.last_message?.content).toBe('Planned, after fixing my calls.');

    const toolMessages = fake.requestsFor(instruction)[2]!.body.messages.filter((message) => message.role === 'tool');
    expect(toolMessages).toHaveLength(2);
    expect(toolMessages[0]!.content).toMatch(/^Error: Arguments are not valid JSON/);
    expect(toolMessages[1]!.content).toMatch(/Unknown tool "noSuchTool"\. Available tools: .*todoWrite/);
    const description = await client.temporal.workflow.getHandle(session.id).describe();
    expect(description.status.name).toBe('RUNNING');
  });

  it('retries a 429 after its Retry-After and then answers', async () => {
    const instruction = 'Are you overloaded?';
    fake.reply(
      { status: 429, headers: { 'retry-after': '1' }, body: { error: { message: 'slow down', type: 'rate_limit' } } },
      { content: 'Not any more.' },
    );
    const session = await client.startSession({ instruction });
    const snapshot = await session.waitUntilIdle({ timeoutMs: 30_000 });
    expect(snapshot.last_error).toBeNull();
    expect(snapshot.last_message).toMatchObject({ role: 'assistant', content: 'Not any more.' });
    const transcript = await session.transcript();
    expect(transcript.map((entry) => entry.role)).toEqual(['user', 'assistant']);

    const history = await client.temporal.workflow.getHandle(session.id).fetchHistory();
    const completed = history.events!.filter((event) => event.activityTaskCompletedEventAttributes);
    const started = history.events!.filter((event) => event.activityTaskStartedEventAttributes);
    expect(completed).toHaveLength(1);
    expect(Number(started[0]!.activityTaskStartedEventAttributes!.attempt)).toBe(2);
    expect(fake.requestsFor(instruction)).toHaveLength(2);
  });

  it('ends the turn on a 400 with a clear error and keeps the session usable', async () => {
    const instruction = 'Trigger a bad request.';
    fake.reply({
      status: 400,
      body: { error: { message: 'Unrecognized request argument supplied: parallel_tools', type: 'invalid_request_error' } },
    });
    const session = await client.startSession({ instruction });
    const failed = await session.waitUntilIdle({ timeoutMs: 30_000 });
    expect(failed.status).toBe('idle');
    expect(failed.last_error).toMatch(/400/);
    expect(failed.last_error).toMatch(/Unrecognized request argument supplied: parallel_tools/);
    expect(failed.last_message).toMatchObject({ role: 'error' });
    expect(fake.requestsFor(instruction)).toHaveLength(1);

    fake.reply({ content: 'Recovered.' });
    const messageId = await session.send('Try again, shorter.');
    const recovered = await session.waitUntilIdle({ messageId, timeoutMs: 30_000 });
    expect(recovered.last_error).toBeNull();
    expect(recovered.last_message).toMatchObject({ role: 'assistant', content: 'Recovered.' });
  });

  it('says, when waiting for a message times out, that the session never received it', async () => {
    fake.reply({ content: 'Hello.' });
    const session = await client.startSession({ instruction: 'Say hello.' });
    await session.waitUntilIdle({ timeoutMs: 30_000 });
    await expect(session.waitUntilIdle({ messageId: 'never-sent', timeoutMs: 500, pollIntervalMs: 100 })).rejects.toThrow(
      `Session ${session.id} is still idle, with message never-sent not received after 500 ms.`,
    );
  });

  it('shows sessions in Temporal with search attributes, a summary, and no API key in history', async () => {
    const instruction = 'Describe yourself.';
    fake.reply({ content: 'I am a test.' });
    const session = await client.startSession({ instruction, title: 'Self portrait' });
    await session.waitUntilIdle({ timeoutMs: 30_000 });
    const handle = client.temporal.workflow.getHandle(session.id);
    const description = await handle.describe();
    expect(description.typedSearchAttributes.get(statusKey)).toBe('idle');
    expect(description.typedSearchAttributes.get(titleKey)).toBe('Self portrait');
    expect(description.typedSearchAttributes.get(rootSessionIdKey)).toBe(session.id);
    expect(await description.staticSummary()).toBe('Self portrait');

    const history = await handle.fetchHistory();
    const scheduled = history.events!.find((event) => event.activityTaskScheduledEventAttributes);
    expect(scheduled?.userMetadata?.summary?.data).toBeDefined();
    expect(Buffer.from(scheduled!.userMetadata!.summary!.data!).toString()).toContain('turn 1');
    expect(JSON.stringify(history)).not.toContain(apiKey);
  });
});
