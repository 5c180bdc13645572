/** The worker's public entry point: a worker that runs Arbor's session workflows and activities. */
export { createArborWorker, type ArborWorker, type ArborWorkerOptions } from './worker/create-worker.js';
