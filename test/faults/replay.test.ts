import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { DeterminismViolationError } from '@temporalio/workflow';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { workflowIgnoredModules } from '../../src/worker/workflow-code.js';
import { quietBundlerLogger, workflowBundle } from '../support/time-skipping.js';

const history = async (name: string) =>
  JSON.parse(await readFile(fileURLToPath(new URL(`../histories/arborSessionV2/${name}.json`, import.meta.url)), 'utf8'));

describe('replaying a committed history', () => {
  it('passes with today’s code and fails with a deliberately non-deterministic change', async () => {
    const recorded = await history('status-step-keys');
    await expect(
      Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, recorded, 'status-step-keys'),
    ).resolves.toBeUndefined();

    const changed = await bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL('./nondeterministic/workflows.ts', import.meta.url)),
      ignoreModules: workflowIgnoredModules,
      logger: quietBundlerLogger,
    });
    const failure = await Worker.runReplayHistory({ workflowBundle: changed }, recorded, 'status-step-keys').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(DeterminismViolationError);
    expect(String(failure)).toMatch(/nondetermin/i);
  });
});
