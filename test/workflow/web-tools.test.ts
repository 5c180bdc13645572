import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionHandle } from '../../src/session-handle.js';
import { sessionWorkflowType, type SessionInput } from '../../src/shared/session.js';
import type { sessionWorkflow } from '../../src/workflows/session-workflow.js';
import { createTimeSkippingEnvironment, demoModel, withWorker } from '../support/time-skipping.js';

describe('the web tools in a session (time-skipping server)', () => {
  let env: TestWorkflowEnvironment;
  let searxng: Server;
  let searxngUrl: string;
  const queries: string[] = [];

  beforeAll(async () => {
    env = await createTimeSkippingEnvironment();
    searxng = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      queries.push(url.searchParams.get('q') ?? '');
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({ results: [{ title: 'Arbor docs', url: 'https://example.org/arbor', content: 'Durable agents on Temporal.' }] }),
      );
    });
    await new Promise<void>((resolve) => searxng.listen(0, '127.0.0.1', resolve));
    searxngUrl = `http://127.0.0.1:${(searxng.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await env?.teardown();
    await new Promise((resolve) => searxng?.close(resolve));
  });

  async function run(taskQueue: string, input: SessionInput) {
    const id = randomUUID();
    await env.client.workflow.start<typeof sessionWorkflow>(sessionWorkflowType, { workflowId: id, taskQueue, args: [input] });
    const session = new SessionHandle(id, env.client);
    await session.waitUntilIdle({ timeoutMs: 20_000 });
    return (await session.transcript()).find((entry) => entry.role === 'tool')!;
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
          results: [{ title: 'Arbor docs', url: 'https://example.org/arbor', description: 'Durable agents on Temporal.', source: 'searxng' }],
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
});
