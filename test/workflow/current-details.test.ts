import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionHandle } from '../../src/client/session-handle.js';
import { defaultMaxToolRounds, sessionWorkflowType, type SessionInput } from '../../src/shared/session.js';
import type { arborSessionV2 } from '../../src/workflows/session-workflow.js';
import { createTimeSkippingEnvironment, demoModel, withWorker } from '../support/time-skipping.js';
import { waitUntilTimerStarted } from '../support/settle.js';
import { waitUntil } from '../support/wait.js';

describe("a session's current details in the Web UI (time-skipping server, demo model)", () => {
  let env: TestWorkflowEnvironment;

  beforeAll(async () => {
    env = await createTimeSkippingEnvironment();
  });

  afterAll(async () => {
    await env?.teardown();
  });

  async function start(taskQueue: string, input: SessionInput): Promise<SessionHandle> {
    const id = randomUUID();
    await env.client.workflow.start<typeof arborSessionV2>(sessionWorkflowType, { workflowId: id, taskQueue, args: [input] });
    return new SessionHandle(id, env.client);
  }

  /** What the Web UI shows as the workflow's current details: the built-in metadata query's `currentDetails`. */
  async function details(session: SessionHandle): Promise<string> {
    const metadata = await env.client.workflow.getHandle(session.id).query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    return metadata.currentDetails ?? '';
  }

  it('shows the question a session waits on, then that it is idle once the question is answered and the turn done', async () => {
    await withWorker(env, demoModel, async (taskQueue) => {
      const session = await start(taskQueue, { instruction: 'Plan a picnic and ask me how detailed.' });
      await waitUntil(async () => (await session.snapshot()).pending_questions.length > 0);
      const [set] = (await session.snapshot()).pending_questions;
      expect(await details(session)).toBe(
        `**Waiting for an answer**\n- Question asked: How detailed should my answer be? (set ${set!.question_set_id})`,
      );
      await session.answer({ 'How detailed should my answer be?': 'Short summary' }, { questionSetId: set!.question_set_id });
      await session.waitUntilIdle({ timeoutMs: 20_000 });
      await waitUntil(async () => (await details(session)) === '**Idle, waiting for a message**');
    });
  });

  it('shows until when a session waits on a durable timer, and what it is calling meanwhile', async () => {
    await withWorker(env, demoModel, async (taskQueue) => {
      const session = await start(taskQueue, { instruction: '/tool wait {"seconds": 86400, "reason": "the daily report"}' });
      await waitUntilTimerStarted(env.client, session.id);
      const { waiting } = await session.snapshot();
      expect((await details(session)).split('\n')).toEqual([
        `**Running**: turn 1, model call 1 of at most ${defaultMaxToolRounds}, calling wait`,
        `- Waiting until ${waiting!.until}: the daily report`,
      ]);
      await session.stop();
      await session.result();
      expect(await details(session)).toBe('**Stopped**');
    });
  });

  it('shows a running sub-agent by title while its parent waits for it, and a completed sub-agent as completed', async () => {
    await withWorker(env, demoModel, async (taskQueue) => {
      const child = JSON.stringify({ title: 'Slow helper', instruction: '/tool wait {"seconds": 3600}', mode: 'async' });
      const session = await start(taskQueue, { instruction: `/tool subAgent ${child}` });
      await waitUntil(async () => (await session.snapshot()).children.length === 1);
      await waitUntil(async () => (await details(session)).includes('- 1 sub-agent running: "Slow helper" (async)'));
      const childId = (await session.snapshot()).children[0]!.sub_session_id;
      await env.sleep('1 hour');
      await env.client.workflow.getHandle(childId).result();
      expect(await details(new SessionHandle(childId, env.client))).toBe('**Completed**');
      await waitUntil(async () => !(await details(session)).includes('sub-agent running'));
    });
  });
});
