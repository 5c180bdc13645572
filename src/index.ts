export * from './client.js';
export { createArborWorker, type ArborWorker, type ArborWorkerOptions } from './worker.js';
export { loadConnectionSettings, type ConnectionSettings } from './connection.js';
export { modelSettingsFromEnv, type ModelSettings } from './activities/model-settings.js';
