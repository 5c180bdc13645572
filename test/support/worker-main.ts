/** A worker in its own process, configured by environment like `arbor worker`, so a test can kill it for real. */
import { createArborWorker } from '../../src/worker.js';

const worker = await createArborWorker();
process.stdout.write('worker ready\n');
await worker.run();
