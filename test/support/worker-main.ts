/**
 * A worker in its own process, configured by environment like `arbor worker`, so a test can kill it for real. It runs
 * the workflow bundle ARBOR_WORKFLOW_BUNDLE names (the run's, unless the test sets it), as createArborWorker does.
 */
import { createArborWorker } from '../../src/worker.js';
import { webFetchFromEnv } from '../../src/activities/web-fetch-settings.js';

// It offers webFetch as `arbor worker` does: unless ARBOR_WEB_FETCH=off.
// A test may ask for few pollers (ARBOR_TEST_WORKER_POLLS), so the worker's long polls sit on few task queue partitions.
const polls = Number(process.env.ARBOR_TEST_WORKER_POLLS) || undefined;
// A test may turn the workflow cache off (ARBOR_TEST_MAX_CACHED_WORKFLOWS=0): each workflow task then replays the history.
const cached = process.env.ARBOR_TEST_MAX_CACHED_WORKFLOWS;
const worker = await createArborWorker({
  webFetch: webFetchFromEnv(process.env, true),
  workerOptions: {
    ...(polls ? { maxConcurrentWorkflowTaskPolls: polls, maxConcurrentActivityTaskPolls: polls } : {}),
    ...(cached ? { maxCachedWorkflows: Number(cached) } : {}),
  },
});
process.stdout.write('worker ready\n');
await worker.run();
