import { randomUUID } from 'node:crypto';
import type { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { statusKey } from '../../src/shared/search-attributes.js';
import { devServerWorkers } from '../support/dev-server-workers.js';
import { call } from '../support/scripted-model.js';
import { tasksWithSeveralWrites } from '../support/search-attribute-writes.js';
import { waitUntil } from '../support/wait.js';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The ArborStatus values the session upserted, in order. */
function statusUpserts(events: HistoryEvent[]): string[] {
  return events.flatMap((event) => {
    const field = event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.[statusKey.name];
    return field?.data ? [JSON.parse(Buffer.from(field.data).toString('utf8')) as string] : [];
  });
}

describe('the ArborStatus search attribute of a session (dev server, worker process, fake model)', () => {
  const servers = devServerWorkers('sk-status-visibility');
  const { model } = servers;

  it('keeps a turn of one model call at the floor of eleven history events, with no status upsert', async () => {
    const instruction = `just answer ${randomUUID()}`;
    model.script(instruction, { content: 'First answer.' }, { content: 'Second answer.' });
    const session = await servers.client.startSession({ profile: 'all', instruction });
    await session.waitUntilIdle({ timeoutMs: 60_000 });
    const handle = servers.client.temporal.workflow.getHandle(session.id);
    const before = (await handle.fetchHistory()).events ?? [];

    const messageId = await session.send('And again?');
    await session.waitUntilIdle({ timeoutMs: 60_000, messageId });
    const after = (await handle.fetchHistory()).events ?? [];

    // The sendMessage update (accepted, completed) in the workflow task that schedules the model call, the call, and
    // the task that ends the turn: one event more than a signal's turn.
    const turn = after.slice(before.length);
    expect(turn.filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes)).toHaveLength(1);
    expect(turn).toHaveLength(11);
    expect(statusUpserts(turn)).toEqual([]);
    expect((await handle.describe()).typedSearchAttributes.get(statusKey)).toBe('idle');
  });

  /** Runs a turn whose model calls are scripted, and returns the ArborStatus values its session upserted. */
  async function statusesOfTurn(
    label: string,
    ...replies: Parameters<typeof model.script>[1][]
  ): Promise<{ upserts: string[]; seenRunning: boolean }> {
    const instruction = `${label} ${randomUUID()}`;
    model.script(instruction, ...replies);
    const session = await servers.client.startSession({ profile: 'all', instruction });
    const handle = servers.client.temporal.workflow.getHandle(session.id);
    let seenRunning = false;
    await waitUntil(async () => {
      seenRunning ||= (await handle.describe()).typedSearchAttributes.get(statusKey) === 'running';
      return (await session.snapshot()).status === 'idle' && (await session.snapshot()).turn === 1;
    }, 60_000);
    await waitUntil(async () => (await handle.describe()).typedSearchAttributes.get(statusKey) === 'idle', 30_000);
    return { upserts: statusUpserts((await handle.fetchHistory()).events ?? []), seenRunning };
  }

  it('keeps a turn whose tools start within two seconds idle in visibility, though queries see it running', async () => {
    const { upserts } = await statusesOfTurn(
      'quick tools',
      call('todoWrite', { todos: [{ content: 'Look around', status: 'in_progress' }] }),
      { content: 'Done after a while.', delayMs: 3_000 },
    );
    // No status is written: the session started with `idle` set by the SDK, and visibility shows it throughout.
    expect(upserts).toEqual([]);
  });

  it('shows running once a turn has run two seconds by the time its tools start, and idle again when it ends', async () => {
    const { upserts, seenRunning } = await statusesOfTurn(
      'slow model then tools',
      { ...call('todoWrite', { todos: [{ content: 'Look around', status: 'in_progress' }] }), delayMs: 2_500 },
      { content: 'Done after a while.', delayMs: 3_000 },
    );
    expect(seenRunning).toBe(true);
    expect(upserts).toEqual(['running', 'idle']);
  });

  it('shows running at once when a round starts a call that may wait long', async () => {
    const { upserts, seenRunning } = await statusesOfTurn('waiting tool', call('wait', { seconds: 3, reason: 'let time pass' }), {
      content: 'Waited.',
    });
    expect(seenRunning).toBe(true);
    expect(upserts).toEqual(['running', 'idle']);
  });

  it('writes waiting_for_user alone when a round asks the user, one write per change and never two in one workflow task', async () => {
    const instruction = `ask first ${randomUUID()}`;
    const question = {
      question: 'Which colour?',
      header: 'Colour',
      options: [
        { label: 'Blue', description: 'Calm' },
        { label: 'Green', description: 'Fresh' },
      ],
    };
    model.script(instruction, call('askUser', { questions: [question] }), { content: 'Blue it is.' });
    const session = await servers.client.startSession({ profile: 'all', instruction });
    const handle = servers.client.temporal.workflow.getHandle(session.id);
    await waitUntil(async () => (await session.pendingQuestions()).length > 0, 60_000);
    await waitUntil(async () => (await handle.describe()).typedSearchAttributes.get(statusKey) === 'waiting_for_user', 30_000);
    await session.answer({ 'Which colour?': 'Blue' });
    await session.waitUntilIdle({ timeoutMs: 60_000 });
    const events = (await handle.fetchHistory()).events ?? [];
    expect(statusUpserts(events)).toEqual(['waiting_for_user', 'running', 'idle']);
    // Temporal's own TemporalChangeVersion writes count too (see status-writes-per-task.test.ts).
    expect(tasksWithSeveralWrites(events)).toEqual({});
  });

  it("leaves a sub-agent that completes, and a stopped session, to Temporal's execution status, and writes failed", async () => {
    const root = `closing statuses ${randomUUID()}`;
    const done = `finishes ${randomUUID()}`;
    const broken = `fails ${randomUUID()}`;
    model.script(
      root,
      {
        toolCalls: [
          { name: 'subAgent', arguments: JSON.stringify({ title: 'Finisher', instruction: done, mode: 'sync' }) },
          { name: 'subAgent', arguments: JSON.stringify({ title: 'Breaker', instruction: broken, mode: 'sync' }) },
        ],
      },
      { content: 'Both came back.' },
    );
    model.script(done, { content: 'Finished.' });
    model.script(broken, { status: 400 });
    const session = await servers.client.startSession({ profile: 'all', instruction: root });
    const snapshot = await session.waitUntilIdle({ timeoutMs: 60_000 });
    const child = (title: string) => snapshot.children.find((candidate) => candidate.title === title);
    expect([child('Finisher')?.status, child('Breaker')?.status]).toEqual(['completed', 'failed']);
    await session.stop();

    const look = async (id: string) => {
      const handle = servers.client.temporal.workflow.getHandle(id);
      const description = await handle.describe();
      return {
        execution: description.status.name,
        arbor: description.typedSearchAttributes.get(statusKey),
        upserts: statusUpserts((await handle.fetchHistory()).events ?? []),
      };
    };
    // Started by its parent with its attributes (idle), it writes no status at all: Temporal says Completed.
    expect(await look(child('Finisher')!.sub_session_id)).toEqual({ execution: 'COMPLETED', arbor: 'idle', upserts: [] });
    // Temporal says Completed for a session whose model failed too, so that one is written.
    expect(await look(child('Breaker')!.sub_session_id)).toEqual({ execution: 'COMPLETED', arbor: 'failed', upserts: ['failed'] });
    // The README's filter for sessions whose model failed finds it (visibility catches up in its own time).
    const listed = async (query: string) => {
      const ids: string[] = [];
      for await (const execution of servers.client.temporal.workflow.list({ query })) ids.push(execution.workflowId);
      return ids;
    };
    const failedQuery = `ArborRootSessionId = '${session.id}' AND ExecutionStatus = 'Completed' AND ArborStatus = 'failed'`;
    await waitUntil(async () => (await listed(failedQuery)).length > 0, 15_000);
    expect(await listed(failedQuery)).toEqual([child('Breaker')!.sub_session_id]);
    // A stop is Temporal's Canceled: the root's last write stays the live status it had.
    const stopped = await look(session.id);
    expect(stopped.execution).toBe('CANCELLED');
    expect(stopped.upserts).not.toContain('stopped');
    expect(stopped.arbor).toBe(stopped.upserts.at(-1));
  });
});
