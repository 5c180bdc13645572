import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ArborClient } from '../../src/client.js';
import { defineHostTool, type ToolDefinition } from '../../src/tools.js';
import { createArborWorker, type ArborWorker } from '../../src/worker.js';
import { devServerSettings } from '../support/connection.js';

const greet = defineHostTool({
  name: 'greet',
  description: 'Greets by name.',
  input: z.object({ name: z.string() }),
  run: ({ name }) => `Hello, ${name}!`,
});
const lookupOrder = defineHostTool({
  name: 'lookup_order',
  description: 'Look up an order by its id.',
  input: z.object({ order_id: z.string() }),
  run: ({ order_id }) => ({ order_id, status: 'shipped' }),
});

describe('a redeploy that changes the host tools', () => {
  const settings = devServerSettings();
  const model = { defaultModel: 'demo', requestTimeoutMs: 10_000 };
  let client: ArborClient;
  const workers: { worker: ArborWorker; running: Promise<void> }[] = [];

  async function startWorker(tools: ToolDefinition[]) {
    const worker = await createArborWorker({ connection: settings, model, tools, workerOptions: { maxCachedWorkflows: 0 } });
    const entry = { worker, running: worker.run() };
    workers.push(entry);
    return entry;
  }

  beforeAll(async () => {
    client = await ArborClient.fromSettings(settings);
  });

  afterAll(async () => {
    await client?.close();
    for (const { worker, running } of workers) {
      worker.shutdown();
      await running;
    }
  });

  it('keeps the catalogue a session started with until it continues as new, then takes the new one with a notice', async () => {
    const before = await startWorker([greet]);
    const session = await client.startSession({ instruction: '/tool greet {"name": "Ada"}', history_limit: 100 });
    await session.waitUntilIdle({ timeoutMs: 30_000 });
    before.worker.shutdown();
    await before.running;
    await startWorker([lookupOrder]);

    // The redeployed worker runs the session on with the catalogue it recorded: lookup_order is not one of its tools yet,
    // and greet still is, though no worker serves it any more.
    const refused = await session.send('/tool lookup_order {"order_id": "A1"}\n/tool greet {"name": "Bo"}');
    await session.waitUntilIdle({ messageId: refused, timeoutMs: 60_000 });
    const workflow = client.temporal.workflow.getHandle(session.id);
    const firstRun = (await workflow.describe()).runId;
    const toolEntries = async () => (await session.transcript()).filter((entry) => entry.role === 'tool');
    const [unknown, unserved] = (await toolEntries()).slice(-2);
    expect(unknown?.content).toMatch(
      /^Error: Unknown tool "lookup_order"\. Available tools: .*greet\. This session has the rtc tool profile\.$/,
    );
    expect(unserved?.content).toBe(
      "Error: Tool greet is not served: the worker that took the call from the session's task queue has no activity tool:greet.",
    );

    for (let turn = 1; (await workflow.describe()).runId === firstRun; turn++) {
      if (turn > 30) throw new Error('the session did not continue as new');
      await session.waitUntilIdle({ messageId: await session.send(`Plan bed ${turn}.`), timeoutMs: 30_000 });
    }
    const called = await session.send('/tool lookup_order {"order_id": "A1"}');
    await session.waitUntilIdle({ messageId: called, timeoutMs: 30_000 });
    expect((await toolEntries()).at(-1)).toMatchObject({
      name: 'lookup_order',
      content: JSON.stringify({ order_id: 'A1', status: 'shipped' }),
    });
    const notices = (await session.transcript()).filter((entry) => entry.role === 'notice').map((entry) => entry.content);
    expect(notices).toContain('The host tools changed as the session continued as new: added lookup_order; removed greet.');
  });
});
