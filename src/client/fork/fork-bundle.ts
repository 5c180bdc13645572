import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { prebuiltWorkflowBundlePath, rememberedWorkflowBundlePath, workflowBundlerOptions } from '../../worker/workflow-code.js';

let bundledOnce: Promise<string> | undefined;

/**
 * The workflow bundle a fork replays with: Arbor's own (its fork probe is part of the session workflow), the one a
 * worker of this process was given, else the package's prebuilt one, else bundled once per process.
 */
export async function forkBundlePath(): Promise<string> {
  const ready = rememberedWorkflowBundlePath() ?? prebuiltWorkflowBundlePath();
  if (ready) return ready;
  bundledOnce ??= (async () => {
    const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };
    const { code } = await bundleWorkflowCode({ ...workflowBundlerOptions(), logger: quiet });
    const path = join(await mkdtemp(join(tmpdir(), 'arbor-fork-')), 'workflow-bundle.js');
    await writeFile(path, code);
    return path;
  })();
  return bundledOnce;
}
