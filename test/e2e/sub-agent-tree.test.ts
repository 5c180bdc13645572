import { devServerWorkers } from '../support/dev-server-workers.js';
import { describe, expect, it } from 'vitest';
import { waitUntil } from '../support/wait.js';
import { parentSessionIdKey, rootSessionIdKey, statusKey, titleKey } from '../../src/shared/search-attributes.js';
import { sessionWorkflowType } from '../../src/shared/session.js';

describe('a session tree on the dev server when its worker dies while sub-agents run', () => {
  const servers = devServerWorkers('sk-tree-restart', { startWorker: false });
  const { fake, model } = servers;

  it('finishes every sub-agent on a new worker and notifies the root exactly once for each', async () => {
    const root = `tree root ${Date.now()}`;
    const childA = `${root} / child A`;
    const childB = `${root} / child B`;
    model
      .script(
        root,
        {
          toolCalls: [
            { name: 'subAgent', arguments: JSON.stringify({ title: 'Child A', instruction: childA }) },
            { name: 'subAgent', arguments: JSON.stringify({ title: 'Child B', instruction: childB }) },
          ],
        },
        { content: 'Spawned both.' },
        // The first notice turn is slow, so the second notice arrives while the root is busy.
        { content: 'Handled a notice.', delayMs: 2_000 },
        { content: 'Handled another notice.' },
      )
      .script(childA, { content: 'lost with the worker', delayMs: 120_000 }, { content: 'A finished.' })
      .script(childB, { content: 'lost with the worker', delayMs: 120_000 }, { content: 'B finished.' });

    await servers.startWorker();
    const session = await servers.client.startSession({ instruction: root });
    await waitUntil(() => fake.requestsFor(childA).length >= 1 && fake.requestsFor(childB).length >= 1, 60_000);
    await servers.restartWorker();

    await waitUntil(async () => {
      const snapshot = await session.snapshot();
      return snapshot.status === 'idle' && snapshot.children.every((child) => child.status === 'completed');
    }, 90_000);
    const snapshot = await session.waitUntilIdle({ timeoutMs: 30_000 });
    expect(snapshot.children.map((child) => [child.title, child.status, child.final_message]).sort()).toEqual([
      ['Child A', 'completed', 'A finished.'],
      ['Child B', 'completed', 'B finished.'],
    ]);
    const notices = (await session.transcript()).filter((entry) => entry.role === 'user' && entry.content.startsWith('[Sub-agent notice]'));
    expect(notices).toHaveLength(2);
    for (const child of snapshot.children) {
      expect(notices.filter((notice) => notice.content.includes(child.sub_session_id))).toHaveLength(1);
    }

    // The whole tree is one visibility query away (visibility is eventually consistent, hence the wait).
    const expected = [session.id, ...snapshot.children.map((child) => child.sub_session_id)].sort();
    let listed: string[] = [];
    await waitUntil(async () => {
      listed = [];
      for await (const execution of servers.client.temporal.workflow.list({ query: `ArborRootSessionId = '${session.id}'` }))
        listed.push(execution.workflowId);
      return listed.length === expected.length;
    }, 15_000);
    expect(listed.sort()).toEqual(expected);

    // A sub-agent starts with its tree's attributes set by its parent, so it never upserts them itself.
    const child = snapshot.children[0]!;
    const childHandle = servers.client.temporal.workflow.getHandle(child.sub_session_id);
    const events = (await childHandle.fetchHistory()).events ?? [];
    const startedWith = Object.keys(events[0]?.workflowExecutionStartedEventAttributes?.searchAttributes?.indexedFields ?? {});
    expect(startedWith.sort()).toEqual([parentSessionIdKey.name, rootSessionIdKey.name, statusKey.name, titleKey.name].sort());
    const upserted = events.flatMap((event) =>
      Object.keys(event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {}),
    );
    // It is an arborSessionV3 like its parent, told its environment by the parent: no local activity, no patch marker,
    // and so no TemporalChangeVersion upsert either. A turn of one model call writes no status, and its completion is
    // Temporal's to show: the sub-agent upserts nothing at all.
    expect(events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name).toBe(sessionWorkflowType);
    expect(events.filter((event) => event.markerRecordedEventAttributes)).toEqual([]);
    expect(upserted).toEqual([]);
    const description = await childHandle.describe();
    const attributes = description.typedSearchAttributes;
    expect([
      attributes.get(rootSessionIdKey),
      attributes.get(parentSessionIdKey),
      attributes.get(titleKey),
      attributes.get(statusKey),
    ]).toEqual([session.id, session.id, child.title, 'idle']);
    expect(description.status.name).toBe('COMPLETED');
  }, 180_000);
});
