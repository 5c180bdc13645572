import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionHandle } from '../../src/client/session-handle.js';
import { sessionWorkflowType, type SessionInput } from '../../src/shared/session.js';
import type { arborSessionV2 } from '../../src/workflows/session-workflow.js';
import { createTimeSkippingEnvironment, demoModel, withWorker } from '../support/time-skipping.js';
import { parseAllowList } from '../../src/web/fetch/index.js';
import { FakeOpenAI } from '../support/fake-openai.js';
import { requestChars, windowedModel } from '../support/windowed-model.js';

describe('the web tools in a session (time-skipping server)', () => {
  let env: TestWorkflowEnvironment;
  let searxng: Server;
  let searxngUrl: string;
  let pages: Server;
  let pagesUrl: string;
  /** Requests to /stall, a page that never answers. */
  let stalled = 0;
  const queries: string[] = [];

  beforeAll(async () => {
    env = await createTimeSkippingEnvironment();
    searxng = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      queries.push(url.searchParams.get('q') ?? '');
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({ results: [{ title: 'Arbor docs', url: 'https://example.org/arbor', content: 'Durable agents on Temporal.' }] }),
        );
    });
    await new Promise<void>((resolve) => searxng.listen(0, '127.0.0.1', resolve));
    searxngUrl = `http://127.0.0.1:${(searxng.address() as AddressInfo).port}`;
    pages = createServer((request, response) => {
      if (request.url === '/stall') {
        stalled += 1;
        return;
      }
      if (request.url === '/big') {
        const paragraphs = Array.from({ length: 2000 }, (_, index) => `<p>Paragraph ${index} about durable agent sessions.</p>`).join('');
        response.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body><main>${paragraphs}</main></body></html>`);
        return;
      }
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end('<html><body><main><h1>Arbor</h1><p>Sessions are <strong>workflows</strong>.</p></main></body></html>');
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    pagesUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}/about`;
  });

  afterAll(async () => {
    await env?.teardown();
    await new Promise((resolve) => searxng?.close(resolve));
    pages?.closeAllConnections();
    await new Promise((resolve) => pages?.close(resolve));
  });

  async function run(taskQueue: string, input: SessionInput) {
    const id = randomUUID();
    await env.client.workflow.start<typeof arborSessionV2>(sessionWorkflowType, { workflowId: id, taskQueue, args: [input] });
    const session = new SessionHandle(id, env.client);
    await session.waitUntilIdle({ timeoutMs: 20_000 });
    const tool = (await session.transcript()).find((entry) => entry.role === 'tool')!;
    return Object.assign(tool, { sessionId: id });
  }

  it('searches through the configured engine and returns its results with their source', async () => {
    await withWorker(
      env,
      demoModel,
      async (taskQueue) => {
        const tool = await run(taskQueue, { instruction: '/tool webSearch {"query": "durable agents", "max_results": 3}' });
        expect(tool.is_error).toBeUndefined();
        expect(JSON.parse(tool.content)).toEqual({
          query: 'durable agents',
          result_count: 1,
          results: [
            { title: 'Arbor docs', url: 'https://example.org/arbor', description: 'Durable agents on Temporal.', source: 'searxng' },
          ],
        });
        expect(queries).toContain('durable agents');
      },
      { search: { engines: [{ engine: 'searxng', url: searxngUrl }] } },
    );
  });

  it('does not offer webSearch when no engine is configured', async () => {
    await withWorker(env, demoModel, async (taskQueue) => {
      const tool = await run(taskQueue, { instruction: '/tool webSearch {"query": "anything"}' });
      expect(tool.is_error).toBe(true);
      expect(tool.content).toMatch(/Unknown tool "webSearch"/);
    });
  });

  it('fetches an allowed page as Markdown marked as untrusted, with the host in the activity summary', async () => {
    await withWorker(
      env,
      demoModel,
      async (taskQueue) => {
        const tool = await run(taskQueue, { instruction: `/tool webFetch {"url": "${pagesUrl}", "prompt": "What are sessions?"}` });
        expect(tool.is_error).toBeUndefined();
        expect(tool.content).toContain('# Arbor');
        expect(tool.content).toContain('**workflows**');
        expect(tool.content).toMatch(/untrusted/i);
        const history = await env.client.workflow.getHandle(tool.sessionId).fetchHistory();
        const summaries = history.events!.flatMap((event) =>
          event.userMetadata?.summary?.data ? [Buffer.from(event.userMetadata.summary.data).toString()] : [],
        );
        expect(summaries.some((summary) => summary.includes(`webFetch: ${new URL(pagesUrl).host}`))).toBe(true);
      },
      { fetchAllow: parseAllowList('127.0.0.1/32') },
    );
  });

  it('refuses a loopback page when the deployment allows none, as a tool error', async () => {
    await withWorker(
      env,
      demoModel,
      async (taskQueue) => {
        const tool = await run(taskQueue, { instruction: `/tool webFetch {"url": "${pagesUrl}", "prompt": "anything"}` });
        expect(tool.is_error).toBe(true);
        expect(tool.content).toMatch(/127\.0\.0\.1|loopback|private|not allowed|refused/i);
      },
      { fetchAllow: parseAllowList(undefined) },
    );
  });

  it("gives a page that never answers one attempt within the call's time, and the model reads the timeout at once", async () => {
    await withWorker(
      env,
      demoModel,
      async (taskQueue) => {
        stalled = 0;
        const started = Date.now();
        const stallUrl = new URL('/stall', pagesUrl).toString();
        const tool = await run(taskQueue, { instruction: `/tool webFetch {"url": "${stallUrl}", "prompt": "anything"}` });
        expect(tool.is_error).toBe(true);
        expect(tool.content).toContain('timed out after 1 seconds');
        expect(tool.content).toContain("webFetch's 1 seconds are the whole call; it is not tried again.");
        expect(stalled).toBe(1);
        expect(Date.now() - started).toBeLessThan(10_000);
      },
      { fetchAllow: parseAllowList('127.0.0.1/32'), webFetch: { timeoutMs: 1_000 } },
    );
  });

  it('does not offer webFetch on a worker that does not enable it', async () => {
    await withWorker(
      env,
      demoModel,
      async (taskQueue) => {
        const tool = await run(taskQueue, { instruction: `/tool webFetch {"url": "${pagesUrl}", "prompt": "What are sessions?"}` });
        expect(tool.is_error).toBe(true);
        expect(tool.content).toMatch(/Unknown tool "webFetch"/);
      },
      { fetchAllow: parseAllowList('127.0.0.1/32'), webFetch: false },
    );
  });

  it('leaves a page within the extraction threshold to the session model, saying so, and extracts above a threshold the worker sets', async () => {
    const fake = await new FakeOpenAI().start();
    try {
      fake.fallback = () => ({ content: 'Extracted: sessions are workflows.' });
      const model = { ...demoModel, baseURL: fake.baseURL, apiKey: 'sk-extract', fetchModel: 'small-model' };
      const fetchAbout = `/tool webFetch {"url": "${pagesUrl}", "prompt": "What are sessions?"}`;
      await withWorker(
        env,
        model,
        async (taskQueue) => {
          const tool = await run(taskQueue, { instruction: fetchAbout });
          expect(tool.content).toContain('**workflows**');
          expect(tool.content).toContain(
            'Prompt: not applied: the content is within the 50,000 bytes extraction threshold, so it is shown whole for you to read.',
          );
          expect(fake.requests).toHaveLength(0);
        },
        { fetchAllow: parseAllowList('127.0.0.1/32') },
      );
      await withWorker(
        env,
        model,
        async (taskQueue) => {
          const tool = await run(taskQueue, { instruction: fetchAbout });
          expect(tool.content).toContain('Extracted: sessions are workflows.');
          expect(tool.content).not.toContain('Prompt: not applied');
          expect(fake.requests).toHaveLength(1);
        },
        // Another cache scope than the first worker's, so the page is fetched again.
        { fetchAllow: parseAllowList('127.0.0.1/32,127.0.0.2/32'), webFetch: { extractionThresholdBytes: 10 } },
      );
    } finally {
      await fake.stop();
    }
  });

  it('has the small model extract what the prompt asks from a page over 50,000 bytes', async () => {
    const fake = await new FakeOpenAI().start();
    try {
      fake.reply({ content: 'Extracted: 800 paragraphs about sessions.', usage: { prompt_tokens: 12_000, completion_tokens: 40 } });
      // Dollars per million tokens: 1 input, 4 output.
      const prices = { 'small-model': { input: 1, output: 4 } };
      const model = { ...demoModel, baseURL: fake.baseURL, apiKey: 'sk-extract', fetchModel: 'small-model', prices };
      const bigUrl = new URL('/big', pagesUrl).toString();
      await withWorker(
        env,
        model,
        async (taskQueue) => {
          const tool = await run(taskQueue, { instruction: `/tool webFetch {"url": "${bigUrl}", "prompt": "How many paragraphs?"}` });
          expect(tool.is_error).toBeUndefined();
          expect(tool.content).toContain('Extracted: 800 paragraphs about sessions.');
          expect(fake.requests).toHaveLength(1);
          const request = fake.requests[0]!.body;
          expect(request.model).toBe('small-model');
          const userMessage = request.messages.find((message) => message.role === 'user')!.content!;
          expect(userMessage).toContain('How many paragraphs?');
          expect(userMessage.length).toBeGreaterThan(50_000);
          expect(userMessage).toContain('Paragraph 1999');
          // The helper model's usage is recorded with the tool's reply, priced, and counted in the session's and tree's totals.
          const session = new SessionHandle(tool.sessionId, env.client);
          const snapshot = await session.snapshot();
          const totals = {
            calls: 1,
            prompt_tokens: 12_000,
            completion_tokens: 40,
            total_tokens: 12_040,
            cost_usd: 0.01216,
            unpriced_calls: 0,
          };
          expect(snapshot.usage?.session).toMatchObject(totals);
          expect(snapshot.usage?.tree).toMatchObject(totals);
          const usage = [];
          for await (const event of session.events({ follow: false })) if (event.type === 'usage') usage.push(event);
          expect(usage).toMatchObject([
            { source: 'webFetch', model: 'small-model', prompt_tokens: 12_000, completion_tokens: 40, cost_usd: 0.01216 },
          ]);
        },
        { fetchAllow: parseAllowList('127.0.0.1/32') },
      );
    } finally {
      await fake.stop();
    }
  });

  describe('a small model with a context window smaller than the page', () => {
    /** The fake small model's window, in characters of request body; it counts four characters a token. */
    const windowChars = 40_000;

    async function windowedFake(): Promise<FakeOpenAI> {
      const fake = await new FakeOpenAI().start();
      fake.fallback = windowedModel(windowChars, (request) => ({
        content: `Extracted from a request of ${requestChars(request)} characters.`,
      }));
      return fake;
    }

    const fetchBig = (prompt: string) => `/tool webFetch {"url": "${new URL('/big', pagesUrl).toString()}", "prompt": "${prompt}"}`;

    it('cuts the page to what the refusal allows, tries again, and sends no page too long after that', async () => {
      const fake = await windowedFake();
      try {
        const model = { ...demoModel, baseURL: fake.baseURL, apiKey: 'sk-extract', fetchModel: 'small-model' };
        await withWorker(
          env,
          model,
          async (taskQueue) => {
            const first = await run(taskQueue, { instruction: fetchBig('How many paragraphs?') });
            expect(first.is_error).toBeUndefined();
            expect(first.content).toContain('Extracted from a request of');
            expect(first.content).toMatch(/extracted for the prompt by a helper model from the first [\d,]+ bytes of [\d,]+ bytes/);
            expect(fake.requests.map(requestChars).map((chars) => chars <= windowChars)).toEqual([false, true]);

            const second = await run(taskQueue, { instruction: fetchBig('Which paragraph comes last?') });
            expect(second.content).toContain('Extracted from a request of');
            expect(fake.requests).toHaveLength(3);
            expect(requestChars(fake.requests[2]!)).toBeLessThanOrEqual(windowChars);
          },
          { fetchAllow: parseAllowList('127.0.0.1/32') },
        );
      } finally {
        await fake.stop();
      }
    });

    it('cuts the page to the window ARBOR_MODEL_CONTEXT_TOKENS gives the small model before the first call', async () => {
      const fake = await windowedFake();
      try {
        const model = {
          ...demoModel,
          baseURL: fake.baseURL,
          apiKey: 'sk-extract',
          fetchModel: 'small-model',
          contextTokens: { models: { 'small-model': 10_000 } },
        };
        await withWorker(
          env,
          model,
          async (taskQueue) => {
            const tool = await run(taskQueue, { instruction: fetchBig('How many paragraphs?') });
            expect(tool.content).toContain('Extracted from a request of');
            expect(fake.requests).toHaveLength(1);
            expect(requestChars(fake.requests[0]!)).toBeLessThanOrEqual(windowChars);
          },
          { fetchAllow: parseAllowList('127.0.0.1/32') },
        );
      } finally {
        await fake.stop();
      }
    });
  });
});
