import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TranscriptEntry } from '../../src/client.js';
import { createAutomations } from '../../src/client/access/automations.js';
import { maxMemoriesPerOwner } from '../../src/shared/tools/memory.js';
import { devServerWorkers } from '../support/dev-server-workers.js';
import { call } from '../support/scripted-model.js';

const savesPerSession = 130;

/** The tool entries of a transcript, by the call they answer. */
function toolResults(transcript: TranscriptEntry[]): Map<string, TranscriptEntry> {
  return new Map(transcript.filter((entry) => entry.role === 'tool').map((entry) => [entry.tool_call_id!, entry]));
}

describe('bursts of writes to one store (dev server, worker process, fake model)', () => {
  const servers = devServerWorkers('sk-write-bursts');
  const { model } = servers;

  it('reports every one of 260 saves of one owner as the store holds it: saved and kept, or refused and absent', async () => {
    const owner = `burst-${randomUUID().slice(0, 8)}`;
    const instructions = [0, 1].map((index) => `save a burst ${index} ${randomUUID()}`);
    const contentOf = (session: number, index: number) => `fact ${session}-${index}`;
    instructions.forEach((instruction, session) =>
      model.script(
        instruction,
        {
          toolCalls: Array.from({ length: savesPerSession }, (_, index) => ({
            name: 'saveMemory',
            arguments: JSON.stringify({ content: contentOf(session, index), tags: [`g${index % 3}`] }),
          })),
        },
        { content: 'Saved them.' },
      ),
    );
    const sessions = await Promise.all(
      instructions.map((instruction) => servers.client.startSession({ profile: 'all', instruction, owner })),
    );
    await Promise.all(sessions.map((session) => session.waitUntilIdle({ timeoutMs: 180_000 })));

    const memories = servers.client.memories(owner);
    const stored = new Map<string, string>();
    for (const tag of ['g0', 'g1', 'g2']) {
      for (const memory of (await memories.list({ tag, limit: 100 })).memories) stored.set(memory.memory_id, memory.content);
    }
    expect(stored.size).toBe(maxMemoriesPerOwner);

    let saved = 0;
    let refused = 0;
    for (const session of sessions) {
      const transcript = await session.transcript();
      const calls = transcript.flatMap((entry) => entry.tool_calls ?? []);
      const results = toolResults(transcript);
      expect(calls).toHaveLength(savesPerSession);
      for (const call of calls) {
        const { content } = JSON.parse(call.arguments) as { content: string };
        const result = results.get(call.id)!;
        if (result.is_error) {
          refused += 1;
          expect(result.content).toContain(`already has ${maxMemoriesPerOwner} memories`);
          expect([...stored.values()]).not.toContain(content);
        } else {
          saved += 1;
          const { memory_id } = JSON.parse(result.content) as { memory_id: string };
          expect(stored.get(memory_id)).toBe(content);
        }
      }
    }
    expect(saved).toBe(maxMemoriesPerOwner);
    expect(refused).toBe(2 * savesPerSession - maxMemoriesPerOwner);
  });

  it('reports every one of 200 task-board operations of 20 sub-agents at once as the root’s board holds it', async () => {
    const root = `plan with helpers ${randomUUID()}`;
    const helpers = Array.from({ length: 20 }, (_, index) => `helper ${index} ${randomUUID()}`);
    const subjectOf = (helper: number, task: number) => `task ${helper}-${task}`;
    model.script(
      root,
      {
        toolCalls: helpers.map((instruction, index) => ({
          name: 'subAgent',
          arguments: JSON.stringify({ title: `Helper ${index}`, instruction }),
        })),
      },
      ...Array.from({ length: 25 }, () => ({ content: 'Noted.' })),
    );
    helpers.forEach((instruction, helper) =>
      model.script(
        instruction,
        {
          toolCalls: Array.from({ length: 10 }, (_, task) => ({
            name: 'TaskCreate',
            arguments: JSON.stringify({ subject: subjectOf(helper, task) }),
          })),
        },
        { content: 'Tasks filed.' },
      ),
    );
    const session = await servers.client.startSession({ profile: 'all', instruction: root });
    let snapshot = await session.snapshot();
    for (
      let tries = 0;
      snapshot.children.length < helpers.length || snapshot.children.some((child) => child.status === 'running');
      tries++
    ) {
      if (tries > 600) throw new Error(`the helpers did not finish: ${JSON.stringify(snapshot.children.map((child) => child.status))}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      snapshot = await session.snapshot();
    }
    const board = new Map(snapshot.tasks.map((task) => [task.id, task.subject]));
    expect(board.size).toBe(200);

    for (const child of snapshot.children) {
      const transcript = await servers.client.session(child.sub_session_id).transcript();
      const calls = transcript.flatMap((entry) => entry.tool_calls ?? []);
      const results = toolResults(transcript);
      expect(calls).toHaveLength(10);
      for (const call of calls) {
        const result = results.get(call.id)!;
        expect(result.is_error ?? false, result.content).toBe(false);
        const { task } = JSON.parse(result.content) as { task: { id: string; subject: string } };
        expect(board.get(task.id)).toBe((JSON.parse(call.arguments) as { subject: string }).subject);
      }
    }
  });

  it('reports every one of 30 automations that sessions of one owner create at once, and makes each once', async () => {
    const owner = `automations-${randomUUID().slice(0, 8)}`;
    const instructions = Array.from({ length: 30 }, (_, index) => `automate ${index} ${randomUUID()}`);
    instructions.forEach((instruction, index) =>
      model.script(
        instruction,
        call('automation_create', {
          title: `Report ${index}`,
          prompt: `Write report ${index}.`,
          timezone: 'Europe/Berlin',
          start_local: '2099-01-01T09:00',
          recurrence: 'daily',
        }),
        { content: 'Automated.' },
      ),
    );
    const sessions = await Promise.all(
      instructions.map((instruction) => servers.client.startSession({ profile: 'all', instruction, owner })),
    );
    await Promise.all(sessions.map((session) => session.waitUntilIdle({ timeoutMs: 180_000 })));

    const automations = await servers.client.automations(owner).list();
    try {
      expect(automations).toHaveLength(30);
      const titles = new Map(automations.map((automation) => [automation.automation_id, automation.title]));
      for (const [index, session] of sessions.entries()) {
        const result = [...toolResults(await session.transcript()).values()][0]!;
        expect(result.is_error ?? false, result.content).toBe(false);
        expect(titles.get((JSON.parse(result.content) as { automation_id: string }).automation_id)).toBe(`Report ${index}`);
      }
    } finally {
      await Promise.all(automations.map((automation) => servers.client.automations(owner).delete(automation.automation_id)));
    }
  });

  it('makes one automation when a create whose reply was lost is sent again with its call’s key', async () => {
    const owner = `automations-${randomUUID().slice(0, 8)}`;
    const automations = createAutomations(servers.client.temporal, servers.settings.taskQueue);
    const args = {
      title: 'Weekly digest',
      prompt: 'Write the digest.',
      timezone: 'UTC',
      start_local: '2099-01-01T09:00',
      recurrence: 'weekly',
    } as const;
    const key = `session-${randomUUID()}/turn-1/round-1/call-0`;
    const first = await automations.create(owner, args, key);
    const again = await automations.create(owner, args, key);
    try {
      expect(again.automation_id).toBe(first.automation_id);
      expect((await automations.list(owner)).map((automation) => automation.automation_id)).toEqual([first.automation_id]);
      await expect(automations.create('someone-else', args, key)).rejects.toThrow();
    } finally {
      await automations.delete(owner, first.automation_id);
    }
  });
});
