import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { forkProbeInterceptorModule, prebuiltForkBundlePath, workflowBundlerOptions } from '../../worker/workflow-code.js';

let bundledOnce: Promise<string> | undefined;

/** The fork replayer's workflow bundle: the package's prebuilt one, else Arbor's workflow code with the probe, bundled once per process. */
export async function forkBundlePath(): Promise<string> {
  const ready = prebuiltForkBundlePath();
  if (ready) return ready;
  bundledOnce ??= (async () => {
    const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };
    const { code } = await bundleWorkflowCode({
      ...workflowBundlerOptions(),
      workflowInterceptorModules: [forkProbeInterceptorModule()],
      logger: quiet,
    });
    const path = join(await mkdtemp(join(tmpdir(), 'arbor-fork-')), 'workflow-bundle-fork.js');
    await writeFile(path, code);
    return path;
  })();
  return bundledOnce;
}
