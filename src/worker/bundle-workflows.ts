/** Build step: bundles the workflow code once, so workers started from the CLI skip bundling at every start. */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowBundlerOptions } from './workflow-code.js';

const { code } = await bundleWorkflowCode({
  ...workflowBundlerOptions(),
  logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error },
});
await writeFile(fileURLToPath(new URL('../workflow-bundle.js', import.meta.url)), code);
