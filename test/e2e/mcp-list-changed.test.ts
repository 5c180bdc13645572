import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestArbor, ScriptedModel, text, toolCall, type TestArbor } from '../../src/testing.js';
import { waitUntil } from '../support/wait.js';

const growingServer = fileURLToPath(new URL('../support/mcp/growing-server.mjs', import.meta.url));

describe('an MCP server whose tool list changes while sessions run (the tests’ dev server, scripted model)', () => {
  const model = new ScriptedModel();
  let arbor: TestArbor;

  beforeAll(async () => {
    arbor = await createTestArbor({
      model,
      server: { address: inject('temporalAddress') },
      workflowBundlePath: inject('workflowBundlePath'),
      mcpServers: { growing: { command: process.execPath, args: [growingServer] } },
    });
  });

  afterAll(async () => {
    await arbor?.teardown();
  });

  it('takes the tools a list_changed notification announces at the session’s next continue-as-new, with a notice', async () => {
    const instruction = 'Grow the server';
    model.forInstruction(instruction, toolCall('growing__grow', {}), text('Grown.'));
    const session = await arbor.startSession({ instruction, history_limit: 100 });
    await arbor.waitUntilIdle(session);
    const [first] = model.requestsFor(instruction);
    expect(first!.tools).toContain('growing__grow');
    expect(first!.tools).not.toContain('growing__grown');
    // The server announced its new tool: the worker lists it again, and offers it to the sessions that start or continue.
    await waitUntil(async () => arbor.mcpStatus().find((server) => server.name === 'growing')?.tool_count === 2, 20_000);

    const workflow = arbor.env.client.workflow.getHandle(session.id);
    const firstRun = (await workflow.describe()).runId;
    for (let turn = 1; (await workflow.describe()).runId === firstRun; turn++) {
      if (turn > 30) throw new Error('the session did not continue as new');
      model.forInstruction(instruction, text(`Turn ${turn}.`));
      await session.send(`Turn ${turn}`);
      await arbor.waitUntilIdle(session);
    }
    // Before the new run, the session's tools were those it started with.
    expect(model.requestsFor(instruction).at(-1)!.tools).not.toContain('growing__grown');
    model.forInstruction(instruction, toolCall('growing__grown', { word: 'hello' }), text('Called.'));
    await session.send('Call the new tool');
    await arbor.waitUntilIdle(session);
    const requests = model.requestsFor(instruction);
    expect(requests.at(-2)!.tools).toContain('growing__grown');
    expect(requests.at(-1)!.toolResults).toEqual(['grown: hello']);
    const notices = (await session.transcript()).filter((entry) => entry.role === 'notice').map((entry) => entry.content);
    expect(notices.find((notice) => notice.startsWith('The host tools changed'))).toMatch(/added .*growing__grown/);
  });
});
