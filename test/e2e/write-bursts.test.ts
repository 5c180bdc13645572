import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TranscriptEntry } from '../../src/client.js';
import { maxMemoriesPerOwner } from '../../src/shared/tools/memory.js';
import { devServerWorkers } from '../support/dev-server-workers.js';

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
    const sessions = await Promise.all(instructions.map((instruction) => servers.client.startSession({ instruction, owner })));
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
});
