import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, toolResults } from '../support/scripted-model.js';
import { withWorker } from '../support/time-skipping.js';
import { scriptedTimeSkipping } from '../support/scripted-time-skipping.js';
import { runIdOf } from '../../src/shared/tools/automations.js';

describe("the worker's administrator list of tools no automation run may use (time-skipping server, scripted model)", () => {
  const scripted = scriptedTimeSkipping('admin-list-model');
  const { fake, model, unique } = scripted;
  const toolsOf = (label: string) => fake.requestsFor(label)[0]!.body.tools?.map((tool) => tool.function.name) ?? [];
  const disallowed = { automationDisallowedTools: ['planWrite', 'subAgent'] };

  it('withholds the listed tools from an automation run that names them, says so in a notice, and refuses a call to one', async () => {
    const prompt = unique('automation run prompt');
    model.script(prompt, call('planWrite', { content: '# Plan' }), { content: 'Run done.' });
    await withWorker(
      scripted.env,
      scripted.settings,
      async (taskQueue) => {
        // As a schedule starts an automation's run: a root session that ends when done, with the automation's tools.
        const runId = runIdOf(`automation-${randomUUID()}`, 'scheduled-2026-12-01T09:00:00Z');
        const run = await scripted.start(
          taskQueue,
          { instruction: prompt, tools: ['todoWrite', 'planWrite', 'subAgent'], ends_when_done: true, approval: 'deny' },
          runId,
        );
        expect((await run.result()).status).toBe('completed');
        expect(toolsOf(prompt)).toEqual(['todoWrite']);
        expect(toolResults(fake.requestsFor(prompt)[1]!)[0]).toMatch(/^Error: Unknown tool "planWrite"\. Available tools: todoWrite\./);
        const notices = (await run.transcript()).filter((entry) => entry.role === 'notice').map((entry) => entry.content);
        expect(notices).toContain(
          "This automation run goes on without planWrite, subAgent: the worker's administrator list (automationDisallowedTools) allows no automation run to use them.",
        );
      },
      disallowed,
    );
  });

  it('withholds them from a run whose automation names no tools list, but not from the other sessions of the worker', async () => {
    const prompt = unique('run without a tools list');
    const child = unique('child of the run');
    const interactive = unique('interactive session');
    model.script(prompt, call('subAgent', { title: 'Helper', instruction: child, mode: 'sync', tools: ['planWrite', 'todoWrite'] }), {
      content: 'Run done.',
    });
    model.script(child, { content: 'Child done.' });
    model.script(interactive, { content: 'Interactive done.' });
    await withWorker(
      scripted.env,
      scripted.settings,
      async (taskQueue) => {
        // subAgent is on the list, so the run cannot start the helper (its call is a tool error).
        const run = await scripted.start(taskQueue, { instruction: prompt, ends_when_done: true });
        expect((await run.result()).status).toBe('completed');
        expect(toolsOf(prompt)).not.toContain('planWrite');
        expect(toolsOf(prompt)).not.toContain('subAgent');
        expect(toolsOf(prompt)).toContain('todoWrite');
        expect(fake.requestsFor(child)).toHaveLength(0);

        const session = await scripted.start(taskQueue, { instruction: interactive });
        await session.waitUntilIdle({ timeoutMs: 30_000 });
        expect(toolsOf(interactive)).toEqual(expect.arrayContaining(['planWrite', 'subAgent', 'todoWrite']));
      },
      disallowed,
    );
  });

  it("keeps the listed tools from an automation run's sub-agents even when the run names them for one", async () => {
    const prompt = unique('run with a helper');
    const child = unique('helper of the run');
    model.script(prompt, call('subAgent', { title: 'Helper', instruction: child, mode: 'sync', tools: ['planWrite', 'todoWrite'] }), {
      content: 'Run done.',
    });
    model.script(child, { content: 'Helper done.' });
    await withWorker(
      scripted.env,
      scripted.settings,
      async (taskQueue) => {
        const run = await scripted.start(taskQueue, { instruction: prompt, ends_when_done: true });
        expect((await run.result()).status).toBe('completed');
        expect(toolsOf(prompt)).toContain('subAgent');
        expect(toolsOf(child)).toEqual(['todoWrite']);
      },
      { automationDisallowedTools: ['planWrite'] },
    );
  });
});
