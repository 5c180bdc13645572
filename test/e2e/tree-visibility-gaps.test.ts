import { fileURLToPath } from 'node:url';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { bundleWorkflowCode } from '@temporalio/worker';
import { afterAll, beforeAll, describe, inject, it, type ExpectStatic } from 'vitest';
import { listSubtree } from '../../src/client/access/tree-listing.js';
import { workflowBundlerOptions } from '../../src/worker/workflow-code.js';
import { createTestArbor, ScriptedModel, text, toolCall, type TestArbor } from '../../src/testing.js';
import { runCli } from '../support/processes.js';
import { waitUntil } from '../support/wait.js';

interface TreeJson {
  session_id: string;
  title: string;
  status: string;
  children: TreeJson[];
}

const flatten = (node: TreeJson): TreeJson[] => [node, ...node.children.flatMap(flatten)];

/** Sessions whose sub-agent "Unindexed middle" visibility never lists in their tree (see test/support/unindexed-children.ts). */
// The two tests run at once (each tree has its own instructions): their waits overlap.
describe.concurrent('tree walks when visibility misses members of a tree (dev server)', () => {
  const model = new ScriptedModel();
  let arbor: TestArbor;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };
    const { code } = await bundleWorkflowCode({
      ...workflowBundlerOptions(),
      workflowInterceptorModules: [fileURLToPath(new URL('../support/unindexed-children.ts', import.meta.url))],
      logger: quiet,
    });
    const bundle = join(await mkdtemp(join(tmpdir(), 'arbor-unindexed-')), 'workflow-bundle.js');
    await writeFile(bundle, code);
    arbor = await createTestArbor({ model, server: { address: inject('temporalAddress') }, workflowBundlePath: bundle });
    env = { TEMPORAL_ADDRESS: inject('temporalAddress'), ARBOR_TASK_QUEUE: arbor.taskQueue };
  }, 120_000);

  afterAll(async () => {
    await arbor?.teardown();
  });

  /** Starts Root -> (Seen, Unindexed middle -> Leaf) and waits until every member sleeps; returns ids by title. */
  async function treeWithAnUnindexedMember(expect: ExpectStatic): Promise<Record<string, string>> {
    const tag = randomUUID();
    model
      .forInstruction(
        `root ${tag}`,
        toolCall('subAgent', { title: 'Seen', instruction: `seen ${tag}`, mode: 'async' }),
        toolCall('subAgent', { title: 'Unindexed middle', instruction: `middle ${tag}`, mode: 'async' }),
        text('Both started.'),
      )
      .forInstruction(`seen ${tag}`, toolCall('wait', { seconds: 3600, reason: 'seen' }))
      .forInstruction(
        `middle ${tag}`,
        toolCall('subAgent', { title: 'Leaf', instruction: `leaf ${tag}`, mode: 'async' }),
        toolCall('wait', { seconds: 3600, reason: 'middle' }),
      )
      .forInstruction(`leaf ${tag}`, toolCall('wait', { seconds: 3600, reason: 'leaf' }));
    const session = await arbor.startSession({ profile: 'all', instruction: `root ${tag}`, title: `Root ${tag}` });
    // The SDK's tree lists all four (walking each member's own record), and each member sleeps.
    let ids: Record<string, string> = {};
    await waitUntil(async () => {
      const tree = (await session.tree()) as TreeJson;
      ids = Object.fromEntries(flatten(tree).map((node) => [node.title.startsWith('Root') ? 'Root' : node.title, node.session_id]));
      if (Object.keys(ids).length !== 4) return false;
      const sleeping = await Promise.all(
        ['Seen', 'Unindexed middle', 'Leaf'].map(async (title) => (await arbor.client.session(ids[title]!).snapshot()).waiting),
      );
      return sleeping.every((waiting) => waiting !== null);
    }, 90_000);
    // The gap is real: visibility's listing of the tree reaches neither the unindexed member nor what is below it.
    await waitUntil(async () => (await listSubtree(arbor.client.temporal, session.id, session.id))?.length === 2, 30_000);
    const listed = await listSubtree(arbor.client.temporal, session.id, session.id);
    expect(listed?.map((entry) => entry.session_id).sort()).toEqual([ids.Root!, ids.Seen!].sort());
    return ids;
  }

  it('arbor stop stops and reports every member, the ones visibility misses included', { timeout: 300_000 }, async ({ expect }) => {
    const ids = await treeWithAnUnindexedMember(expect);
    const stopped = JSON.parse((await runCli(['stop', ids.Root!, '--json'], env, 150_000)).stdout);
    expect(stopped.total_stopped).toBe(4);
    expect(stopped.stopped_sessions.map((entry: { sub_session_id: string }) => entry.sub_session_id).sort()).toEqual(
      Object.values(ids).sort(),
    );
    for (const id of Object.values(ids))
      expect((await arbor.client.temporal.workflow.getHandle(id).describe()).status.name).toBe('CANCELLED');
  });

  it(
    'after the root is terminated, arbor tree shows it terminated and all below it, and arbor stop stops them all',
    { timeout: 300_000 },
    async ({ expect }) => {
      const ids = await treeWithAnUnindexedMember(expect);
      await arbor.client.temporal.workflow.getHandle(ids.Root!).terminate('closed from outside');

      const tree: TreeJson = JSON.parse((await runCli(['tree', ids.Root!, '--json'], env, 150_000)).stdout);
      expect(tree.status).toBe('terminated');
      expect(
        flatten(tree)
          .map((node) => node.session_id)
          .sort(),
      ).toEqual(Object.values(ids).sort());

      const stopped = JSON.parse((await runCli(['stop', ids.Root!, '--json'], env, 150_000)).stdout);
      expect(stopped.stopped_sessions.map((entry: { title: string }) => entry.title).sort()).toEqual(['Leaf', 'Seen', 'Unindexed middle']);
      expect(stopped.total_stopped).toBe(3);
      for (const title of ['Seen', 'Unindexed middle', 'Leaf'])
        expect((await arbor.client.temporal.workflow.getHandle(ids[title]!).describe()).status.name).toBe('CANCELLED');
    },
  );
});
