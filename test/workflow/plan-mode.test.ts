import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SessionHandle } from '../../src/client/session-handle.js';
import { ArborClientError } from '../../src/client/errors.js';
import { defineHostTool } from '../../src/tools.js';
import { buildCatalogue } from '../../src/tools/catalogue.js';
import { hostToolActivities } from '../../src/tools/activities.js';
import { call, toolResults } from '../support/scripted-model.js';
import type { RecordedRequest } from '../support/fake-openai.js';
import { withWorker } from '../support/time-skipping.js';
import { scriptedTimeSkipping } from '../support/scripted-time-skipping.js';

const refusal = (name: string) =>
  `Error: ${name} is marked destructive (it changes things outside this conversation), and this session is in Plan mode, so the call did not run.`;

describe('Plan mode (time-skipping server, scripted model)', () => {
  const scripted = scriptedTimeSkipping('plan-mode-model');
  const { fake, model, unique } = scripted;
  const namesOf = (request: RecordedRequest) => request.body.tools?.map((tool) => tool.function.name) ?? [];
  const systemPromptOf = (request: RecordedRequest) => request.body.messages.find((message) => message.role === 'system')?.content ?? '';

  it('holds the destructive built-in tools back from the model, refuses a call to one with a tool error, and runs the plan tools', async () => {
    const instruction = unique('plan the clean-up');
    model.script(
      instruction,
      {
        toolCalls: [
          { name: 'deleteMemory', arguments: JSON.stringify({ memory_id: 'm-1' }) },
          { name: 'automation_create', arguments: '{not json' },
          { name: 'planWrite', arguments: JSON.stringify({ content: '# Clean-up\n1. delete m-1', title: 'Clean-up' }) },
        ],
      },
      { content: 'Plan written.' },
    );
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await scripted.start(taskQueue, { instruction, work_mode: 'plan' });
      const snapshot = await session.waitUntilIdle({ timeoutMs: 30_000 });
      expect(snapshot.work_mode).toBe('plan');
      expect(snapshot.plan).toMatchObject({ title: 'Clean-up', revision: 1 });
      const [first, second] = fake.requestsFor(instruction);
      for (const held of ['deleteMemory', 'updateMemory', 'automation_create', 'automation_update', 'automation_run_enqueue'])
        expect(namesOf(first!)).not.toContain(held);
      expect(namesOf(first!)).toEqual(expect.arrayContaining(['planWrite', 'planGet', 'saveMemory', 'automation_run_get', 'subAgent']));
      expect(systemPromptOf(first!)).toContain('This session is in Plan mode');
      expect(systemPromptOf(first!)).toContain('held back until then: updateMemory, deleteMemory, automation_create');
      const results = toolResults(second!);
      expect(results[0]).toMatch(new RegExp(`^${refusal('deleteMemory').replace(/[().]/g, '\\$&')}`));
      expect(results[1]).toMatch(/^Error: automation_create is marked destructive/);
      expect(results[2]).not.toMatch(/^Error/);
    });
  });

  it('switches to Execute mode with executePlan, tells the agent to implement the plan, and then runs destructive tools', async () => {
    const instruction = unique('plan the memory tidy-up');
    model.script(
      instruction,
      call('deleteMemory', { memory_id: 'm-2' }),
      { content: 'Planned: delete m-2.' },
      call('deleteMemory', { memory_id: 'm-2' }),
      { content: 'Done.' },
    );
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await scripted.start(taskQueue, { instruction, work_mode: 'plan', owner: `owner-${instruction.slice(-8)}` });
      await session.waitUntilIdle({ timeoutMs: 30_000 });
      const messageId = await session.executePlan({ message: 'Keep the rest.' });
      const snapshot = await session.waitUntilIdle({ messageId, timeoutMs: 30_000 });
      expect(snapshot.work_mode).toBe('execute');
      const requests = fake.requestsFor(instruction);
      expect(toolResults(requests[1]!)[0]).toMatch(/^Error: deleteMemory is marked destructive/);
      const executing = requests[2]!;
      expect(executing.body.messages.at(-1)).toMatchObject({
        role: 'user',
        content: expect.stringMatching(
          /^\[Execute plan\] The user approved the plan[\s\S]*Implement the plan[\s\S]*The user added: Keep the rest\.$/,
        ),
      });
      expect(namesOf(executing)).toContain('deleteMemory');
      expect(systemPromptOf(executing)).not.toContain('Plan mode');
      // The call ran: the owner's store answered it (there is no such memory), not the Plan-mode refusal.
      expect(toolResults(requests[3]!).at(-1)).toMatch(/^Error: No memory m-2/);
      const notices = (await session.transcript()).filter((entry) => entry.role === 'notice').map((entry) => entry.content);
      expect(notices).toContain('Execute plan: the session is in Execute mode now; tools marked destructive run.');

      await expect(session.executePlan()).rejects.toThrow(
        new ArborClientError(`Session ${session.id} is in Execute mode already: its tools all run.`),
      );
    });
  });

  it('refuses executePlan on a session started in Execute mode, and a malformed request, at the caller', async () => {
    const instruction = unique('an ordinary session');
    model.script(instruction, { content: 'Hello.' });
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await scripted.start(taskQueue, { instruction });
      expect((await session.waitUntilIdle({ timeoutMs: 30_000 })).work_mode).toBe('execute');
      await expect(session.executePlan()).rejects.toThrow(/is in Execute mode already/);
      await expect(session.executePlan({ message: '   ' })).rejects.toThrow(/^Invalid executePlan request:[\s\S]*message is empty/);
      expect(fake.requestsFor(instruction)).toHaveLength(1);
    });
  });

  it('starts only Plan-mode sub-agents from a Plan-mode parent, and refuses one whose named tools are all destructive', async () => {
    const root = unique('plan with a helper');
    const child = unique('helper in plan mode');
    let childId = '';
    model.script(
      root,
      call('subAgent', { title: 'Helper', instruction: child, mode: 'sync' }),
      (request) => {
        childId = JSON.parse(toolResults(request)[0]!).sub_session_id as string;
        return call('subAgent', { title: 'Scheduler', instruction: 'never starts', tools: ['automation_create', 'deleteMemory'] });
      },
      { content: 'Root planned.' },
    );
    model.script(child, call('updateMemory', { memory_id: 'm-3', content: 'x' }), { content: 'Helper planned.' });
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const session = await scripted.start(taskQueue, { instruction: root, work_mode: 'plan' });
      await session.waitUntilIdle({ timeoutMs: 30_000 });
      expect((await new SessionHandle(childId, scripted.env.client).snapshot()).work_mode).toBe('plan');
      expect(namesOf(fake.requestsFor(child)[0]!)).not.toContain('updateMemory');
      expect(toolResults(fake.requestsFor(child)[1]!)[0]).toMatch(/^Error: updateMemory is marked destructive/);
      expect(toolResults(fake.requestsFor(root)[2]!)[1]).toBe(
        'Error: This session is in Plan mode, so its sub-agents are too, and every tool named (automation_create, deleteMemory) is marked destructive: the sub-agent would have none it may run. Name tools that are not destructive, or [] for text only.',
      );
      expect(fake.requestsFor('never starts')).toHaveLength(0);
    });
  });

  it('does not run a host tool defined destructive in Plan mode, and runs one that is not', async () => {
    const sent: string[] = [];
    const tools = [
      defineHostTool({
        name: 'send_invoice',
        description: 'Send an invoice.',
        input: z.object({ to: z.string() }),
        destructive: true,
        run: ({ to }) => (sent.push(to), 'sent'),
      }),
      defineHostTool({
        name: 'draft_invoice',
        description: 'Draft an invoice.',
        input: z.object({ to: z.string() }),
        run: ({ to }) => `draft for ${to}`,
      }),
    ];
    const instruction = unique('plan the invoices');
    model.script(
      instruction,
      {
        toolCalls: [
          { name: 'send_invoice', arguments: JSON.stringify({ to: 'acme' }) },
          { name: 'draft_invoice', arguments: JSON.stringify({ to: 'acme' }) },
        ],
      },
      { content: 'Drafted.' },
    );
    await withWorker(
      scripted.env,
      scripted.settings,
      async (taskQueue) => {
        const session = await scripted.start(taskQueue, { instruction, work_mode: 'plan' });
        await session.waitUntilIdle({ timeoutMs: 30_000 });
        const [first, second] = fake.requestsFor(instruction);
        expect(namesOf(first!)).toContain('draft_invoice');
        expect(namesOf(first!)).not.toContain('send_invoice');
        expect(toolResults(second!)).toEqual([expect.stringMatching(/^Error: send_invoice is marked destructive/), 'draft for acme']);
        expect(sent).toEqual([]);
      },
      { hostTools: buildCatalogue(tools) },
      hostToolActivities(tools, 'same-queue').get('same-queue')!,
    );
  });
});
