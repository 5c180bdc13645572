/** Build step: bundles the workflow code once, so workers started from the CLI skip bundling at every start. */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { forkProbeInterceptorModule, prebuiltBundleName, prebuiltForkBundleName, workflowBundlerOptions } from './workflow-code.js';

const logger = { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error };

// Two bundles: without tracing (no interceptor runs at all) and with it (picked when the worker traces).
for (const traced of [false, true]) {
  const { code } = await bundleWorkflowCode({
    ...workflowBundlerOptions(traced),
    logger,
  });
  await writeFile(fileURLToPath(new URL(`../${prebuiltBundleName(traced)}`, import.meta.url)), code);
}

// A third for session.fork() and arbor fork: the replayer that reads a session's state at a turn end.
const { code: forkCode } = await bundleWorkflowCode({
  ...workflowBundlerOptions(),
  workflowInterceptorModules: [forkProbeInterceptorModule()],
  logger,
});
await writeFile(fileURLToPath(new URL(`../${prebuiltForkBundleName}`, import.meta.url)), forkCode);
