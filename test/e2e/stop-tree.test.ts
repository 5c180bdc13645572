import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { listSubtree } from '../../src/client/access/tree-listing.js';
import { devServerWorkers } from '../support/dev-server-workers.js';
import { call } from '../support/scripted-model.js';
import { waitUntil } from '../support/wait.js';

describe('stopping a session tree on the dev server (worker process, fake model)', () => {
  const servers = devServerWorkers('sk-stop-tree');
  const { model } = servers;

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
    const session = await servers.client.startSession({ instruction: root });
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

  it('stops the sub-agents a terminated root left running, each subtree leaves first', async () => {
    const tag = randomUUID();
    const root = `terminated root ${tag}`;
    model
      .script(root, call('subAgent', { title: 'Middle', instruction: `middle ${tag}` }), { content: 'Started.' })
      .script(`middle ${tag}`, call('subAgent', { title: 'Leaf', instruction: `leaf ${tag}` }), { content: 'Leaf started.' })
      .script(`leaf ${tag}`, call('wait', { seconds: 3600, reason: 'leaf' }));
    const session = await servers.client.startSession({ instruction: root });
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
