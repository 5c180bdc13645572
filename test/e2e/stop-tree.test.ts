import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { listSubtree } from '../../src/client/access/tree-listing.js';
import { devServerWorkers } from '../support/dev-server-workers.js';
import { call, toolResults } from '../support/scripted-model.js';
import { waitUntil } from '../support/wait.js';

describe('stopping a session tree on the dev server (worker process, fake model)', () => {
  const servers = devServerWorkers('sk-stop-tree');
  const { model, fake } = servers;

  /** Waits until visibility lists `size` running sessions in the tree of `rootId`; returns their ids by title. */
  async function runningTree(rootId: string, size: number): Promise<Record<string, string>> {
    let ids: Record<string, string> = {};
    await waitUntil(async () => {
      const listed = (await listSubtree(servers.client.temporal, rootId, rootId)) ?? [];
      ids = Object.fromEntries(listed.map((entry) => [entry.title, entry.session_id]));
      return listed.length === size && listed.every((entry) => entry.execution_status === 'RUNNING');
    }, 60_000);
    return ids;
  }

  it('lists the tree from visibility and stops every session in it, leaves first', async () => {
    const tag = randomUUID();
    const root = `stop root ${tag}`;
    model
      .script(
        root,
        call('subAgent', { title: 'Middle', instruction: `middle ${tag}` }),
        call('subAgent', { title: 'Side', instruction: `side ${tag}` }),
        { content: 'Both started.' },
      )
      .script(`middle ${tag}`, call('subAgent', { title: 'Leaf', instruction: `leaf ${tag}` }), { content: 'Leaf started.' })
      .script(`leaf ${tag}`, call('wait', { seconds: 3600, reason: 'leaf' }))
      .script(`side ${tag}`, call('wait', { seconds: 3600, reason: 'side' }));
    const session = await servers.client.startSession({ profile: 'all', instruction: root });
    const temporal = servers.client.temporal;
    const ids = await runningTree(session.id, 4);
    await waitUntil(async () => (await servers.client.session(ids.Leaf!).snapshot()).waiting !== null, 60_000);

    // A subtree is the target and what descends from it, not its siblings.
    const middle = await listSubtree(temporal, session.id, ids.Middle!);
    expect(middle?.map((entry) => entry.title).sort()).toEqual(['Leaf', 'Middle']);
    expect(await listSubtree(temporal, session.id, 'no-such-session')).toBeUndefined();

    const stopped = await session.stop();
    expect(stopped.total_stopped).toBe(4);
    const order = stopped.stopped_sessions.map((entry) => entry.title);
    expect(order.sort()).toEqual(['Leaf', 'Middle', 'Side', root].sort());
    const position = (title: string) => stopped.stopped_sessions.findIndex((entry) => entry.title === title);
    expect(position('Leaf')).toBeLessThan(position('Middle'));
    expect(position('Middle')).toBeLessThan(position(root));
    expect(position('Side')).toBeLessThan(position(root));
    for (const id of Object.values(ids)) expect((await temporal.workflow.getHandle(id).describe()).status.name).toBe('CANCELLED');
  }, 120_000);

  it('reports only the sessions each stop stopped: a grandchild, then its parent by stopSubAgent, then the root by stop()', async () => {
    const tag = randomUUID();
    const root = `counting root ${tag}`;
    let ids: Record<string, string> = {};
    model
      .script(
        root,
        call('subAgent', { title: 'Parent', instruction: `parent ${tag}` }),
        { content: 'Started.' },
        () => call('stopSubAgent', { sub_session_id: ids['Leaf one'] }),
        () => call('stopSubAgent', { sub_session_id: ids.Parent }),
        { content: 'Stopped both.' },
      )
      .script(
        `parent ${tag}`,
        call('subAgent', { title: 'Leaf one', instruction: `leaf one ${tag}` }),
        call('subAgent', { title: 'Leaf two', instruction: `leaf two ${tag}` }),
        { content: 'Leaves started.' },
      )
      .script(`leaf one ${tag}`, call('wait', { seconds: 3600, reason: 'leaf one' }))
      .script(`leaf two ${tag}`, call('wait', { seconds: 3600, reason: 'leaf two' }));
    const session = await servers.client.startSession({ profile: 'all', instruction: root });
    ids = await runningTree(session.id, 4);
    for (const leaf of ['Leaf one', 'Leaf two'])
      await waitUntil(async () => (await servers.client.session(ids[leaf]!).snapshot()).waiting !== null, 60_000);

    const messageId = await session.send('Stop the first leaf, then its parent.');
    await session.waitUntilIdle({ messageId, timeoutMs: 60_000 });
    const [first, second] = toolResults(fake.requestsFor(root).at(-1)!)
      .slice(-2)
      .map((text) => JSON.parse(text));
    expect(first).toEqual({ stopped_sessions: [{ sub_session_id: ids['Leaf one'], title: 'Leaf one' }], total_stopped: 1 });
    expect(second).toEqual({
      stopped_sessions: [
        { sub_session_id: ids['Leaf two'], title: 'Leaf two' },
        { sub_session_id: ids.Parent, title: 'Parent' },
      ],
      total_stopped: 2,
    });

    expect(await session.stop()).toEqual({
      stopped_sessions: [{ sub_session_id: session.id, title: expect.any(String) }],
      total_stopped: 1,
    });
  }, 120_000);

  it('stops the sub-agents a terminated root left running, each subtree leaves first', async () => {
    const tag = randomUUID();
    const root = `terminated root ${tag}`;
    model
      .script(root, call('subAgent', { title: 'Middle', instruction: `middle ${tag}` }), { content: 'Started.' })
      .script(`middle ${tag}`, call('subAgent', { title: 'Leaf', instruction: `leaf ${tag}` }), { content: 'Leaf started.' })
      .script(`leaf ${tag}`, call('wait', { seconds: 3600, reason: 'leaf' }));
    const session = await servers.client.startSession({ profile: 'all', instruction: root });
    const temporal = servers.client.temporal;
    const ids = await runningTree(session.id, 3);

    // Termination does not reach sub-agents started to outlive their parent's run.
    await temporal.workflow.getHandle(session.id).terminate('terminated from the Web UI');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await temporal.workflow.getHandle(ids.Middle!).describe()).status.name).toBe('RUNNING');

    const stopped = await session.stop();
    expect(stopped.stopped_sessions.map((entry) => entry.title)).toEqual(['Leaf', 'Middle']);
    for (const title of ['Middle', 'Leaf'])
      expect((await temporal.workflow.getHandle(ids[title]!).describe()).status.name).toBe('CANCELLED');

    await expect(session.stop()).rejects.toThrow(`Session ${session.id} has already ended (terminated), and nothing below it is running.`);
  }, 120_000);
});
