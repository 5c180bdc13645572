import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowBundlerOptions } from './workflow-code.js';

let bundledOnce: Promise<string> | undefined;

/**
 * Arbor's workflow code bundled into a temporary file, once per process, for whoever needs a bundle where no
 * prebuilt one exists (running from source): the testing kit's workers and replays, and a fork's local replay.
 */
export function workflowCodeBundledOnce(): Promise<string> {
  bundledOnce ??= (async () => {
    const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };
    const { code } = await bundleWorkflowCode({ ...workflowBundlerOptions(), logger: quiet });
    const path = join(await mkdtemp(join(tmpdir(), 'arbor-workflow-')), 'workflow-bundle.js');
    await writeFile(path, code);
    return path;
  })();
  return bundledOnce;
}
