/**
 * Vitest setup: every worker, testing kit and fork replay of a test process (and every process a test starts with
 * this environment) runs the workflow bundle the global setup built, through the documented ARBOR_WORKFLOW_BUNDLE,
 * instead of bundling the same code again (about 10 s of CPU each). A test that sets the variable keeps its own; a
 * configuration whose global setup builds none (the cluster suite's) changes nothing.
 */
import { inject } from 'vitest';

const built = inject('workflowBundlePath') as string | undefined;
if (built) process.env.ARBOR_WORKFLOW_BUNDLE ??= built;
