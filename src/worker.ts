/** The worker's public entry point: a worker that runs Arbor's session workflows and activities. */
export { createArborWorker, type ArborWorker, type ArborWorkerOptions } from './worker/create-worker.js';
export { workflowBundlerOptions } from './worker/workflow-code.js';
export { memoryStoreFromEnv, type MemoryStoreSettings } from './client/access/memory-store-settings.js';
export {
  McpConfigError,
  type McpServersConfig,
  type McpServerConfig,
  type McpStdioServerConfig,
  type McpHttpServerConfig,
  type McpToolSettings,
} from './mcp/config.js';
export type { McpServerStatus } from './mcp/mcp-servers.js';
