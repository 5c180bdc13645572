import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ArborClient } from '../../src/client/arbor-client.js';
import { listTree } from '../../src/client/access/tree-listing.js';
import { flattenMembers, memberNode, readTreeMembers, renderMemberTree } from '../../src/cli/tree-members.js';
import { parentSessionIdKey, rootSessionIdKey, titleKey } from '../../src/shared/search-attributes.js';
import { createTestArbor, ScriptedModel, text, toolCall, type TestArbor } from '../../src/testing.js';
import { waitUntil } from '../support/wait.js';

describe('a tree walk (arbor tree, show, loops) when one member cannot answer', () => {
  const model = new ScriptedModel();
  let arbor: TestArbor;

  beforeAll(async () => {
    arbor = await createTestArbor({
      model,
      server: { address: inject('temporalAddress') },
      workflowBundlePath: inject('workflowBundlePath'),
    });
  }, 120_000);

  afterAll(async () => {
    await arbor?.teardown();
  });

  it('shows the member from what is known of it, says why, and still shows every other member', async () => {
    const tag = randomUUID();
    model
      .forInstruction(
        `root ${tag}`,
        toolCall('subAgent', { title: 'Answering child', instruction: `child ${tag}`, mode: 'async' }),
        text('Started.'),
      )
      .forInstruction(`child ${tag}`, toolCall('wait', { seconds: 3600, reason: 'asleep' }));
    const root = await arbor.startSession({ profile: 'all', instruction: `root ${tag}`, title: `Root ${tag}` });
    await waitUntil(async () => {
      const [child] = (await root.snapshot()).children;
      return child !== undefined && (await arbor.client.session(child.sub_session_id).snapshot()).waiting !== null;
    }, 60_000);

    // A member of the tree on a task queue no worker polls (a worker fleet gone, a queue misnamed in a deploy): visibility
    // lists it under the root, and its snapshot query is never answered.
    const strandedId = `stranded-${tag}`;
    await arbor.client.temporal.workflow.start('arborSessionV3', {
      workflowId: strandedId,
      taskQueue: `no-worker-${tag}`,
      args: [],
      typedSearchAttributes: [
        { key: rootSessionIdKey, value: root.id },
        { key: parentSessionIdKey, value: root.id },
        { key: titleKey, value: 'Stranded member' },
      ],
    });
    await waitUntil(async () => (await listTree(arbor.client.temporal, root.id))?.has(strandedId) === true, 30_000);

    const impatient = new ArborClient(arbor.client.temporal, arbor.taskQueue, { queryTimeoutMs: 2_000 });
    try {
      const tree = await readTreeMembers(impatient, root.id);
      const byTitle = new Map(flattenMembers(tree).map((member) => [member.title, member]));
      expect([...byTitle.keys()].sort()).toEqual(['Answering child', 'Stranded member', `Root ${tag}`].sort());

      const child = byTitle.get('Answering child')!;
      expect(child.unanswered).toBeUndefined();
      expect(child.snapshot?.waiting?.reason).toBe('asleep');

      const stranded = byTitle.get('Stranded member')!;
      expect(stranded.snapshot).toBeUndefined();
      expect(stranded.unanswered).toMatch(/^No answer from stranded-.* within 2 s/);
      const node = memberNode(tree).children.find((member) => member.session_id === strandedId)!;
      expect(node).toMatchObject({ title: 'Stranded member', status: 'unknown', unanswered: stranded.unanswered });
      expect(node.state).toMatch(/^state unknown; could not answer: No answer from/);

      const lines = renderMemberTree(tree);
      expect(lines[0]).toContain(`Root ${tag}`);
      expect(lines.some((line) => line.includes('Answering child') && line.includes('waiting until'))).toBe(true);
      expect(lines.some((line) => line.includes('Stranded member') && line.includes('could not answer'))).toBe(true);
    } finally {
      await arbor.client.temporal.workflow.getHandle(strandedId).terminate('test over');
    }
  });

  it('still fails with the reason when the session asked for itself cannot answer', async () => {
    const lonelyId = `lonely-${randomUUID()}`;
    await arbor.client.temporal.workflow.start('arborSessionV3', { workflowId: lonelyId, taskQueue: `no-worker-${lonelyId}`, args: [] });
    const impatient = new ArborClient(arbor.client.temporal, arbor.taskQueue, { queryTimeoutMs: 1_000 });
    try {
      await expect(readTreeMembers(impatient, lonelyId)).rejects.toThrow(/No answer from lonely-.* within 1 s/);
    } finally {
      await arbor.client.temporal.workflow.getHandle(lonelyId).terminate('test over');
    }
  });
});
