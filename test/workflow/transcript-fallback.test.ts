import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionHandle } from '../../src/client/session-handle.js';
import type { TranscriptEntry } from '../../src/shared/session.js';
import { createTimeSkippingEnvironment, quietBundlerLogger } from '../support/time-skipping.js';

describe('a client reading the transcript of a session served by an older worker', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    env = await createTimeSkippingEnvironment();
  }, 120_000);
  afterAll(async () => {
    await env?.teardown();
  });

  it('falls back to the transcript query when the worker has no transcriptPage query', async () => {
    const entries: TranscriptEntry[] = ['first', 'second', 'third'].map((content, index) => ({
      id: `entry-${index}`,
      role: 'user',
      content,
      created_at: new Date(0).toISOString(),
    }));
    const taskQueue = `older-${randomUUID()}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: await bundleWorkflowCode({
        workflowsPath: fileURLToPath(new URL('../support/older-workers/pre-page-session.ts', import.meta.url)),
        logger: quietBundlerLogger,
      }),
    });
    await worker.runUntil(async () => {
      const workflowId = randomUUID();
      await env.client.workflow.start('prePageSession', { workflowId, taskQueue, args: [entries] });
      const session = new SessionHandle(workflowId, env.client);
      expect((await session.transcript()).map((entry) => entry.content)).toEqual(['first', 'second', 'third']);
      expect((await session.transcript({ offset: 1, limit: 1 })).map((entry) => entry.content)).toEqual(['second']);
      await env.client.workflow.getHandle(workflowId).terminate('test over');
    });
  }, 120_000);
});
