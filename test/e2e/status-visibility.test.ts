import { randomUUID } from 'node:crypto';
import type { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { statusKey } from '../../src/shared/search-attributes.js';
import { devServerWorkers } from '../support/dev-server-workers.js';
import { call } from '../support/scripted-model.js';
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

  it('keeps a turn of one model call at the floor of ten history events, with no status upsert', async () => {
    const instruction = `just answer ${randomUUID()}`;
    model.script(instruction, { content: 'First answer.' }, { content: 'Second answer.' });
    const session = await servers.client.startSession({ instruction });
    await session.waitUntilIdle({ timeoutMs: 60_000 });
    const handle = servers.client.temporal.workflow.getHandle(session.id);
    const before = (await handle.fetchHistory()).events ?? [];

    const messageId = await session.send('And again?');
    await session.waitUntilIdle({ timeoutMs: 60_000, messageId });
    const after = (await handle.fetchHistory()).events ?? [];

    const turn = after.slice(before.length);
    expect(turn).toHaveLength(10);
    expect(statusUpserts(turn)).toEqual([]);
    expect((await handle.describe()).typedSearchAttributes.get(statusKey)).toBe('idle');
  });

  it('shows running once a turn runs tools, and idle again when it ends', async () => {
    const instruction = `use a tool ${randomUUID()}`;
    model.script(
      instruction,
      call('todoWrite', { todos: [{ content: 'Look around', status: 'in_progress' }] }),
      { content: 'Done after a while.', delayMs: 3_000 },
    );
    const session = await servers.client.startSession({ instruction });
    const handle = servers.client.temporal.workflow.getHandle(session.id);
    await waitUntil(async () => (await handle.describe()).typedSearchAttributes.get(statusKey) === 'running', 30_000);
    await session.waitUntilIdle({ timeoutMs: 60_000 });

    expect(statusUpserts((await handle.fetchHistory()).events ?? [])).toEqual(['idle', 'running', 'idle']);
    await waitUntil(async () => (await handle.describe()).typedSearchAttributes.get(statusKey) === 'idle', 30_000);
  });
});
