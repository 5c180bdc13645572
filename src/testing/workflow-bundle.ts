import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { prebuiltWorkflowBundlePath, workflowBundlerOptions } from '../worker/workflow-code.js';

let bundledOnce: Promise<string> | undefined;

/** The workflow bundle's path: given, the package's prebuilt one, or Arbor's workflow code bundled once per process. */
export async function workflowBundlePath(given?: string): Promise<string> {
  const ready = given ?? prebuiltWorkflowBundlePath();
  if (ready) return ready;
  bundledOnce ??= (async () => {
    const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };
    const { code } = await bundleWorkflowCode({ ...workflowBundlerOptions(), logger: quiet });
    const path = join(await mkdtemp(join(tmpdir(), 'arbor-testing-')), 'workflow-bundle.js');
    await writeFile(path, code);
    return path;
  })();
  return bundledOnce;
}
