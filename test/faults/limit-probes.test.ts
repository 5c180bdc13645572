/**
 * Fault injection, limit probes (issue 9, item 6): the sub-agent fan-out cap, a flood of user messages into one
 * session, model answers over Temporal's 2 MB payload limit and a 10 MB tool result. Each is refused or bounded
 * where it enters, with a clear message; the workflow is never stuck and never fails a workflow task.
 *
 * ARBOR_FAULT_SCALE=full (npm run test:faults) floods 5,000 messages; the default (npm test) floods 1,000.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxModelAnswerBytes } from '../../src/activities/model-reply.js';
import { maxExtractionChars } from '../../src/activities/web.js';
import { maxUnacknowledgedSends } from '../../src/client/session-handle.js';
import { defaultMaxChildren } from '../../src/shared/session.js';
import { parentSessionIdKey } from '../../src/shared/search-attributes.js';
import { call, firstUserMessage, toolResults } from '../support/scripted-model.js';
import { roundResultBudget } from '../../src/workflows/tools/round-budget.js';
import { faultSettings } from '../support/fault-settings.js';
import { waitUntil } from '../support/wait.js';
import { faultWorker } from './fault-worker.js';

const fullScale = faultSettings().full;
/** Temporal refuses payloads (activity inputs and results, signals) over this size. */
const payloadLimit = 2 * 1024 * 1024;
/** Temporal warns about a run whose history passes this many events. */
const historyWarning = 10_240;

describe('limit probes (dev server, fake model)', () => {
  const harness = faultWorker('sk-limit-probes');
  const { fake, model } = harness;

  it(`refuses sub-agents past the fan-out cap of ${defaultMaxChildren} even when one answer asks for 60 at once`, async () => {
    const root = `fan-out ${randomUUID()}`;
    const spawns = Array.from({ length: 60 }, (_, index) => ({
      name: 'subAgent',
      arguments: JSON.stringify({ title: `Helper ${index}`, instruction: `helper ${index} of ${root}` }),
    }));
    model.script(root, { toolCalls: spawns }, { content: 'Started what I could.' });
    const session = await harness.client.startSession({ profile: 'all', instruction: root });
    await waitUntil(async () => (await session.snapshot()).children.length > 0, 30_000);

    await waitUntil(() => fake.requestsFor(root).length >= 2, 60_000);
    const results = toolResults(fake.requestsFor(root)[1]!);
    expect(results).toHaveLength(60);
    const started = results.filter((result) => result.includes('"status":"running"'));
    const refused = results.filter((result) => result.startsWith('Error: '));
    expect(started).toHaveLength(defaultMaxChildren);
    expect(refused).toHaveLength(60 - defaultMaxChildren);
    for (const refusal of refused) {
      expect(refusal).toBe(
        `Error: This session already runs ${defaultMaxChildren} sub-agents, the most it may run at once (${defaultMaxChildren}). Wait for some to finish or stop them.`,
      );
    }

    // Every started helper finishes and is reported once; no more than the cap were ever started.
    await waitUntil(async () => (await session.snapshot()).children.every((child) => child.status === 'completed'), 120_000);
    const snapshot = await session.waitUntilIdle({ timeoutMs: 60_000 });
    expect(snapshot.children).toHaveLength(defaultMaxChildren);
    const childWorkflows = async () => (await harness.client.temporal.workflow.count(`${parentSessionIdKey.name} = "${session.id}"`)).count;
    await waitUntil(async () => (await childWorkflows()) >= defaultMaxChildren);
    expect(await childWorkflows()).toBe(defaultMaxChildren);
    expect(await harness.workflowTaskFailures(session.id)).toEqual([]);
  });

  it(
    `delivers a flood of ${fullScale ? '5,000' : '1,000'} messages sent at once at the session's pace: each once, in order, every run under the history warning`,
    async () => {
      const count = fullScale ? 5_000 : 1_000;
      const instruction = `flood ${randomUUID()}`;
      const tag = `flood-${randomUUID().slice(0, 8)}`;
      // A model that takes a second per answer: messages pile up during each turn and are taken together.
      model.script(instruction, ...Array.from({ length: count }, () => ({ content: 'Noted.', delayMs: 1_000 })));
      const session = await harness.client.startSession({ profile: 'all', instruction });
      await session.waitUntilIdle({ timeoutMs: 30_000 });

      const ids = await Promise.all(Array.from({ length: count }, (_, index) => session.send(`${tag} message ${index}`)));
      await session.waitUntilIdle({ messageId: ids.at(-1)!, timeoutMs: 120_000 });
      const idle = await session.waitUntilIdle({ timeoutMs: 120_000 });
      expect(idle.last_error).toBeNull();

      // Every message reached the model, in the order sent; no conversation the model saw held one twice.
      const seen: number[] = [];
      for (const request of fake.requests) {
        const flooded = request.body.messages
          .filter((message) => message.role === 'user' && message.content?.startsWith(tag))
          .map((message) => Number(message.content!.split(' ').at(-1)));
        expect(new Set(flooded).size).toBe(flooded.length);
        expect(flooded).toEqual([...flooded].sort((a, b) => a - b));
        for (const index of flooded) if (!seen.includes(index)) seen.push(index);
      }
      expect(seen).toHaveLength(count);

      // The SDK never had more than its window of messages waiting for the session (its sendMessage updates go one at
      // a time, and signals, where it falls back to them, within the window), so no workflow task ever met more than
      // that many new messages (Temporal fails one that meets over 100 signals), and none failed.
      const runs = await harness.runHistories(session.id);
      const batches: number[] = [];
      for (const events of runs) {
        let batch = 0;
        for (const event of events) {
          if (event.workflowExecutionSignaledEventAttributes || event.workflowExecutionUpdateAcceptedEventAttributes) batch += 1;
          if (event.workflowTaskStartedEventAttributes) {
            batches.push(batch);
            batch = 0;
          }
        }
      }
      expect(Math.max(...batches)).toBeLessThanOrEqual(maxUnacknowledgedSends);
      // The session continues as new between turns while messages are still queued. When a message arrives during
      // that workflow task, the server turns the continue-as-new down (UNHANDLED_COMMAND) and the next task takes the
      // message first: Temporal's way of losing no signal, not a failure of the session.
      const failures = runs.flat().filter((event) => event.workflowTaskFailedEventAttributes);
      expect(
        failures.filter(
          (event) =>
            String(event.workflowTaskFailedEventAttributes!.cause) !== 'WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND' &&
            event.workflowTaskFailedEventAttributes!.cause !== 1,
        ),
      ).toEqual([]);
      for (const events of runs) expect(events.length).toBeLessThan(historyWarning);
      const messageId = await session.send('Still with me?');
      await session.waitUntilIdle({ messageId, timeoutMs: 60_000 });
      expect(await harness.workflowStatus(session.id)).toBe('RUNNING');
    },
    fullScale ? 600_000 : 180_000,
  );

  it('continues as new under the payload limit with messages of 200,000 Chinese characters, three bytes each', async () => {
    const instruction = `chinese messages ${randomUUID()}`;
    const tag = `zh-${randomUUID().slice(0, 8)}`;
    model.script(
      instruction,
      { content: 'Thinking slowly.', delayMs: 3_000 },
      ...Array.from({ length: 10 }, () => ({ content: '读完了。' })),
    );
    const session = await harness.client.startSession({ profile: 'all', instruction });
    await waitUntil(() => fake.requestsFor(instruction).length === 1);
    // Six messages of 600,000 bytes, sent at once: a million characters of them, counted as characters, would be
    // carried as 3 MB. Sent at once they could also buffer 3.6 MB of signals during one workflow task, which the server
    // force-closes (FORCE_CLOSE_COMMAND); the client's send window holds each back until the one before is taken in.
    const ids = await Promise.all(Array.from({ length: 6 }, (_, index) => session.send(`${tag} ${index} `.padEnd(200_000, '长消息'))));
    await session.waitUntilIdle({ messageId: ids.at(-1)!, timeoutMs: 120_000 });

    // The run summarizes its long transcript (an activity) after its last turn, then continues as new.
    let runs = await harness.runHistories(session.id);
    await waitUntil(async () => (runs = await harness.runHistories(session.id)).length >= 2, 60_000);
    const payloadSize = (payloads: { payloads?: { data?: Uint8Array | null }[] | null } | null | undefined) =>
      payloads?.payloads?.[0]?.data?.length ?? 0;
    const carried = runs.slice(1).map((run) => payloadSize(run[0]?.workflowExecutionStartedEventAttributes?.input));
    expect(Math.max(...carried)).toBeLessThan(payloadLimit * 0.75);
    expect(runs.flat().filter((event) => event.workflowTaskFailedEventAttributes)).toEqual([]);

    const messageId = await session.send('读完了吗？');
    const next = await session.waitUntilIdle({ messageId, timeoutMs: 60_000 });
    expect(next.last_error).toBeNull();
    expect(await harness.workflowStatus(session.id)).toBe('RUNNING');
  });

  it('takes 12 queued messages of 200,000 characters one turn at a time, and continues as new with a bounded transcript', async () => {
    const instruction = `big messages ${randomUUID()}`;
    const tag = `big-${randomUUID().slice(0, 8)}`;
    model.script(
      instruction,
      { content: 'Thinking slowly.', delayMs: 3_000 },
      ...Array.from({ length: 20 }, () => ({ content: 'Read it.' })),
    );
    const session = await harness.client.startSession({ profile: 'all', instruction });
    await waitUntil(() => fake.requestsFor(instruction).length === 1);
    const ids = await Promise.all(
      Array.from({ length: 12 }, (_, index) => session.send(`${tag} ${index} `.padEnd(200_000, 'long message '))),
    );

    const snapshot = await session.waitUntilIdle({ messageId: ids.at(-1)!, timeoutMs: 120_000 });
    expect(snapshot.last_error).toBeNull();
    // One 200,000-character message a turn (two would pass the 250,000-character batch), after the first turn.
    expect(snapshot.turn).toBe(13);
    const reached = new Set(
      fake.requests.flatMap((request) =>
        request.body.messages.filter((message) => message.content?.startsWith(tag)).map((message) => message.content!.slice(0, 20)),
      ),
    );
    expect(reached.size).toBe(12);

    // Each model call took one message; the history grew past Temporal's suggestion and the session continued as
    // new, carrying a transcript cut to its size limit rather than 2.4 MB of messages.
    const runs = await harness.runHistories(session.id);
    expect(runs.length).toBeGreaterThanOrEqual(2);
    const events = runs.flat();
    const payloadSize = (payloads: { payloads?: { data?: Uint8Array | null }[] | null } | null | undefined) =>
      payloads?.payloads?.[0]?.data?.length ?? 0;
    const modelInputs = events.flatMap((event) =>
      event.activityTaskScheduledEventAttributes ? [payloadSize(event.activityTaskScheduledEventAttributes.input)] : [],
    );
    expect(modelInputs.length).toBeGreaterThanOrEqual(13);
    expect(Math.max(...modelInputs)).toBeLessThan(payloadLimit / 2);
    const carried = runs.slice(1).map((run) => payloadSize(run[0]?.workflowExecutionStartedEventAttributes?.input));
    expect(Math.max(...carried)).toBeLessThan(payloadLimit * 0.75);
    expect(events.filter((event) => event.workflowTaskFailedEventAttributes)).toEqual([]);

    const messageId = await session.send('Done reading?');
    const next = await session.waitUntilIdle({ messageId, timeoutMs: 60_000 });
    expect(next.last_error).toBeNull();
    expect(await harness.workflowStatus(session.id)).toBe('RUNNING');
  });

  for (const megabytes of [1.5, 5]) {
    it(`refuses a ${megabytes} MB model answer without retrying, with a clear message, and answers the next message`, async () => {
      const instruction = `answer of ${megabytes} MB ${randomUUID()}`;
      model.script(instruction, { content: 'x'.repeat(megabytes * 1024 * 1024) }, { content: 'A shorter answer.' });
      const session = await harness.client.startSession({ profile: 'all', instruction });
      const snapshot = await session.waitUntilIdle({ timeoutMs: 60_000 });
      expect(snapshot.status).toBe('idle');
      expect(snapshot.last_error).toMatch(
        new RegExp(
          `^The model call failed: the model's answer has [\\d,]+ bytes, more than the ${maxModelAnswerBytes.toLocaleString('en-US')} one answer may have \\(Temporal's payload limit is 2 MB\\)`,
        ),
      );
      expect(fake.requestsFor(instruction)).toHaveLength(1);

      const messageId = await session.send('Please keep it short.');
      const next = await session.waitUntilIdle({ messageId, timeoutMs: 30_000 });
      expect(next.last_message).toMatchObject({ role: 'assistant', content: 'A shorter answer.' });
      expect(await harness.workflowTaskFailures(session.id)).toEqual([]);
    });
  }

  it('cuts enormous tool names in a 1.5 MB answer, so the tool errors stay small and the turn goes on', async () => {
    const instruction = `enormous names ${randomUUID()}`;
    const toolCalls = Array.from({ length: 25 }, (_, index) => ({ name: `tool${index}`.padEnd(60_000, 'z'), arguments: '{}' }));
    model.script(instruction, { toolCalls }, { content: 'Those tools do not exist.' });
    const session = await harness.client.startSession({ profile: 'all', instruction });
    const snapshot = await session.waitUntilIdle({ timeoutMs: 60_000 });
    expect(snapshot.last_message).toMatchObject({ role: 'assistant', content: 'Those tools do not exist.' });
    const results = toolResults(fake.requestsFor(instruction)[1]!);
    expect(results).toHaveLength(25);
    for (const result of results) {
      expect(result).toMatch(/^Error: Unknown tool "tool\d+z+…"/);
      expect(result.length).toBeLessThan(2_000);
    }
    expect(await harness.workflowTaskFailures(session.id)).toEqual([]);
  });

  it('reads a transcript of 4.5 MB in the middle of a turn, although one gRPC message carries at most 4 MB', async () => {
    const instruction = `long answers ${randomUUID()}`;
    const longAnswer = (index: number) => ({
      content: `answer ${index} `.padEnd(900_000, 'é text '),
      toolCalls: [{ name: 'listLoops', arguments: '{}' }],
    });
    // The turn's last model call waits (under the harness's 10-second request timeout), so the transcript is read
    // before the turn ends and the session continues as new.
    model.script(instruction, ...[1, 2, 3, 4, 5].map(longAnswer), { content: 'Done.', delayMs: 8_000 });
    const session = await harness.client.startSession({ profile: 'all', instruction });
    await waitUntil(async () => (await session.snapshot()).message_count === 11, 60_000);

    const transcript = await session.transcript();
    expect(transcript.map((entry) => entry.role)).toEqual(['user', ...Array.from({ length: 5 }, () => ['assistant', 'tool']).flat()]);
    const answers = transcript.filter((entry) => entry.role === 'assistant');
    expect(answers.map((entry) => entry.content)).toEqual([1, 2, 3, 4, 5].map((index) => longAnswer(index).content));
    expect(Buffer.byteLength(JSON.stringify(transcript))).toBeGreaterThan(4 * 1024 * 1024);
    expect(await session.transcript({ offset: 9, limit: 1 })).toEqual([transcript[9]]);

    const snapshot = await session.waitUntilIdle({ timeoutMs: 60_000 });
    expect(snapshot.last_message).toMatchObject({ role: 'assistant', content: 'Done.' });
    expect(await harness.workflowTaskFailures(session.id)).toEqual([]);
  });

  it('shares one budget across a round of 45 large tool results, so the next model call stays under the payload limit', async () => {
    const instruction = `many large results ${randomUUID()}`;
    model.script(
      instruction,
      call('planWrite', { title: 'Big', content: 'p'.repeat(50_000) }),
      { toolCalls: Array.from({ length: 45 }, () => ({ name: 'planGet', arguments: '{}' })) },
      { content: 'Read it many times.' },
    );
    const session = await harness.client.startSession({ profile: 'all', instruction });
    const snapshot = await session.waitUntilIdle({ timeoutMs: 60_000 });
    expect(snapshot.last_message).toMatchObject({ role: 'assistant', content: 'Read it many times.' });
    // The first tool result is planWrite's, from the round before.
    const results = toolResults(fake.requestsFor(instruction)[2]!).slice(1);
    expect(results).toHaveLength(45);
    expect(results.reduce((sum, result) => sum + result.length, 0)).toBeLessThanOrEqual(roundResultBudget);
    expect(results[0]).toMatch(/this round's 45 tool results share 1000000 bytes\]$/);
    expect(await harness.workflowTaskFailures(session.id)).toEqual([]);
  });
});

describe('a 10 MB tool result (dev server, webFetch of loopback pages, fake extraction model)', () => {
  const tenMegabytes = 10 * 1024 * 1024;
  const harness = faultWorker('sk-web-limits', { fetchAllow: '127.0.0.1/32', fetchModel: 'extract-model' });
  const { fake } = harness;
  let pages: Server;
  let pagesUrl: string;
  const runawayMarker = 'RUNAWAY-EXTRACTION';

  beforeAll(async () => {
    const page = (marker: string, bytes: number) =>
      Buffer.concat([Buffer.from(`${marker}\n`), Buffer.alloc(bytes - marker.length - 1, 'All work and no play. ')]);
    const bodies: Record<string, Buffer> = {
      '/ten-mb': page('PAGE', tenMegabytes),
      '/ten-mb-runaway': page(runawayMarker, tenMegabytes),
      '/eleven-mb': page('PAGE', 11 * 1024 * 1024),
    };
    pages = createServer((request, response) => {
      const body = bodies[request.url ?? ''];
      if (!body) return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(body);
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    pagesUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
    // The small model behind webFetch answers with a summary, or runs away with 3 MB when the page says so.
    const scripted = fake.fallback;
    fake.fallback = (request) => {
      if (request.body.model !== 'extract-model') return scripted(request);
      return {
        content: firstUserMessage(request).includes(runawayMarker) ? 'y'.repeat(3 * 1024 * 1024) : 'Extracted: a page of repeated text.',
      };
    };
  });

  afterAll(async () => {
    await new Promise((resolve) => pages?.close(resolve));
  });

  it('bounds 10 MB pages to what the helper model extracts (its runaway answer cut) and refuses an 11 MB page', async () => {
    const instruction = `ten megabytes ${randomUUID()}`;
    const fetches = ['/ten-mb', '/ten-mb-runaway', '/eleven-mb'].map((path) => ({
      name: 'webFetch',
      arguments: JSON.stringify({ url: `${pagesUrl}${path}`, prompt: 'What does the page say?' }),
    }));
    harness.model.script(instruction, { toolCalls: fetches }, { content: 'Read them.' }, { content: 'Still here.' });
    const session = await harness.client.startSession({ profile: 'all', instruction });
    const snapshot = await session.waitUntilIdle({ timeoutMs: 120_000 });
    expect(snapshot.last_message).toMatchObject({ role: 'assistant', content: 'Read them.' });

    const [summary, runaway, tooLarge] = (await session.transcript()).filter((entry) => entry.role === 'tool');
    // (Checked without printing a 100,000-character result when they fail.)
    const has = (content: string | undefined, text: string) =>
      expect(content?.includes(text), `${content?.slice(0, 300)}… should contain ${text}`).toBe(true);
    expect(summary!.is_error).toBeUndefined();
    has(summary!.content, 'Extracted: a page of repeated text.');
    has(summary!.content, 'extracted for the prompt by a helper model from the first 200,000 bytes of 10,485,760 bytes');
    expect(runaway!.is_error).toBeUndefined();
    has(
      runaway!.content,
      `[cut: the helper model's answer has 3,145,728 characters; only the first ${maxExtractionChars.toLocaleString('en-US')} are shown]`,
    );
    expect(runaway!.content.length).toBeLessThan(maxExtractionChars + 2_000);
    expect(tooLarge!.is_error).toBe(true);
    has(tooLarge!.content, "is larger than webFetch's limit of 10 MB; reading stopped");

    // The helper model was given the first 200,000 bytes of a page, not 10 MB.
    const extractions = fake.requests.filter((request) => request.body.model === 'extract-model');
    expect(extractions).toHaveLength(2);
    for (const request of extractions) expect(firstUserMessage(request).length).toBeLessThan(210_000);

    const events = (await harness.runHistories(session.id)).flat();
    const results = events.flatMap((event) =>
      event.activityTaskCompletedEventAttributes
        ? [event.activityTaskCompletedEventAttributes.result?.payloads?.[0]?.data?.length ?? 0]
        : [],
    );
    expect(Math.max(...results)).toBeLessThan(payloadLimit / 2);
    expect(events.filter((event) => event.workflowTaskFailedEventAttributes)).toEqual([]);
    const messageId = await session.send('Anything else?');
    const next = await session.waitUntilIdle({ messageId, timeoutMs: 30_000 });
    expect(next.last_message).toMatchObject({ role: 'assistant', content: 'Still here.' });
  });
});
