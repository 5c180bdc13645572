import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SessionHandle } from '../../src/client/session-handle.js';
import { demoModelName } from '../../src/shared/model.js';
import { defaultMaxToolRounds } from '../../src/shared/session.js';
import { createTestArbor, type TestArbor } from '../../src/testing.js';

describe("a session's current details in the Web UI (the testing kit on the time-skipping server, demo model)", () => {
  let arbor: TestArbor;

  beforeAll(async () => {
    arbor = await createTestArbor({
      model: { defaultModel: demoModelName, requestTimeoutMs: 5_000 },
      workflowBundlePath: inject('workflowBundlePath'),
    });
  });

  afterAll(async () => {
    await arbor?.teardown();
  });

  /**
   * What the Web UI shows as the workflow's current details: the built-in metadata query's `currentDetails`, asked
   * once the session has settled (a query of our own must not meet a workflow task in flight).
   */
  async function details(session: SessionHandle | string): Promise<string> {
    const id = typeof session === 'string' ? session : session.id;
    await arbor.settle(id);
    const metadata = await arbor.env.client.workflow.getHandle(id).query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    return metadata.currentDetails ?? '';
  }

  it('shows the question a session waits on, then that it is idle once the question is answered and the turn done', async () => {
    const session = await arbor.startSession({ instruction: 'Plan a picnic and ask me how detailed.' });
    const [set] = await arbor.waitForUser(session);
    expect(await details(session)).toBe(
      `**Waiting for an answer**\n- Question asked: How detailed should my answer be? (set ${set!.question_set_id})`,
    );
    await arbor.answerQuestions(session, { 'How detailed should my answer be?': 'Short summary' }, { questionSetId: set!.question_set_id });
    await arbor.waitUntilIdle(session);
    expect(await details(session)).toBe('**Idle, waiting for a message**');
  });

  it('shows until when a session waits on a durable timer, and what it is calling meanwhile', async () => {
    // wait is a soai and all tool.
    const session = await arbor.startSession({
      instruction: '/tool wait {"seconds": 86400, "reason": "the daily report"}',
      profile: 'all',
    });
    await arbor.settle(session);
    const { waiting } = await arbor.snapshot(session);
    expect((await details(session)).split('\n')).toEqual([
      `**Running**: turn 1, model call 1 of at most ${defaultMaxToolRounds}, calling wait`,
      `- Waiting until ${waiting!.until}: the daily report`,
    ]);
    await session.stop();
    await arbor.waitUntilFinished(session);
    expect(await details(session)).toBe('**Stopped**');
  });

  it('shows a running sub-agent by title while its parent waits for it, and a completed sub-agent as completed', async () => {
    const child = JSON.stringify({ title: 'Slow helper', instruction: '/tool wait {"seconds": 3600}', mode: 'async' });
    const session = await arbor.startSession({ instruction: `/tool subAgent ${child}`, profile: 'all' });
    await arbor.settle(session);
    const { children } = await arbor.snapshot(session);
    expect(children).toHaveLength(1);
    expect(await details(session)).toContain('- 1 sub-agent running: "Slow helper" (async)');
    const childId = children[0]!.sub_session_id;
    await arbor.fastForward(session, '1 hour');
    await arbor.waitUntilFinished(childId);
    expect(await details(childId)).toBe('**Completed**');
    expect(await details(session)).not.toContain('sub-agent running');
  });
});
