/** A worker in its own process, configured by environment like `arbor worker`, so a test can kill it for real. */
import { createArborWorker } from '../../src/worker.js';
import { webFetchFromEnv } from '../../src/activities/web-fetch-settings.js';

// The tests bundle the workflow code once (global setup) rather than in every worker process they start.
const bundle = process.env.ARBOR_TEST_WORKFLOW_BUNDLE;
// It offers webFetch as `arbor worker` does: unless ARBOR_WEB_FETCH=off.
const worker = await createArborWorker({ ...(bundle ? { workflowBundlePath: bundle } : {}), webFetch: webFetchFromEnv(process.env, true) });
process.stdout.write('worker ready\n');
await worker.run();
