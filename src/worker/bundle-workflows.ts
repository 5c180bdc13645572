/** Build step: bundles the workflow code once, so workers started from the CLI skip bundling at every start. */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { prebuiltBundleName, workflowBundlerOptions } from './workflow-code.js';

// Two bundles: without tracing (no interceptor runs at all) and with it (picked when the worker traces).
for (const traced of [false, true]) {
  const { code } = await bundleWorkflowCode({
    ...workflowBundlerOptions(traced),
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error },
  });
  await writeFile(fileURLToPath(new URL(`../${prebuiltBundleName(traced)}`, import.meta.url)), code);
}
