import type { Client } from '@temporalio/client';
import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDependencies } from '../activities/index.js';
import type { ModelSettings } from '../activities/model-settings.js';
import { buildCatalogue } from '../tools/catalogue.js';
import { hostToolActivities } from '../tools/activities.js';
import type { ToolDefinition } from '../tools/define.js';
import type { McpServersConfig } from '../mcp/config.js';
import { liveCatalogue } from '../mcp/live-catalogue.js';
import { McpServers, type McpServerStatus } from '../mcp/mcp-servers.js';
import { mcpToolActivity } from '../mcp/tool-activity.js';
import { openPostgresMemoryStore, type MemoryStoreAccess } from '../client/access/memory-stores.js';
import type { MemoryStoreSettings } from '../client/access/memory-store-settings.js';
import { prebuiltWorkflowBundlePath, rememberWorkflowBundlePath, workflowSourceWorkerOptions } from './workflow-code.js';
import type { Tracing } from '../tracing/tracing-state.js';

export interface SessionWorkersOptions {
  client: Client;
  nativeConnection: NativeConnection;
  namespace: string;
  taskQueue: string;
  model: ModelSettings;
  tools: readonly ToolDefinition[];
  /** MCP servers whose tools the sessions are offered (checked with checkMcpServers); started here, closed by run(). */
  mcpServers?: McpServersConfig | undefined;
  /** Lines about the MCP servers (started, down, restarting). */
  log?: (line: string) => void;
  searchAttributes: boolean;
  workflowBundlePath?: string | undefined;
  workerOptions?: Partial<WorkerOptions> | undefined;
  /**
   * The process's tracing (loadTracing), when the worker traces: interceptors, the workflow spans' sink and a
   * workflow bundle with the tracing interceptors; run() flushes the spans when the worker stops. None: nothing added.
   */
  tracing?: Tracing | undefined;
  /** Activity settings otherwise read from the worker's environment (search engines, question timeout...). */
  activities?: Partial<Omit<ActivityDependencies, 'client' | 'model' | 'searchAttributes' | 'hostTools' | 'memoryDatabase'>>;
  /** Where memories are kept (checked with checkMemoryStore; default: the workflow store). A database is reached here, closed by run(). */
  memoryStore?: MemoryStoreSettings | undefined;
}

export interface SessionWorkers {
  /** The worker of the session workflows and Arbor's activities. */
  worker: Worker;
  /** Runs the worker and the host tools' own-queue workers until shutdown() (or a signal the SDK handles), then closes the MCP servers. */
  run(): Promise<void>;
  /** Each configured MCP server's state and tool count. */
  mcpStatus(): McpServerStatus[];
  shutdown(): void;
}

/**
 * The workers of one task queue over connections the caller owns: the session worker, and one more per task queue
 * that host tools name. A bad tool definition throws a ToolDefinitionError before any worker is created.
 */
export async function createSessionWorkers(options: SessionWorkersOptions): Promise<SessionWorkers> {
  const ownTools = buildCatalogue(options.tools);
  const toolQueues = hostToolActivities(options.tools, options.taskQueue);
  const bundlePath = options.workflowBundlePath ?? prebuiltWorkflowBundlePath(options.tracing !== undefined);
  const log = options.log ?? (() => {});
  if (bundlePath && !options.tracing) rememberWorkflowBundlePath(bundlePath);
  if (options.tracing && options.workflowBundlePath)
    log('tracing: the given workflow bundle is used as it is; workflow spans need one bundled with the tracing interceptors');
  const memoryDatabase = await openMemoryDatabase(options.memoryStore);
  let mcp: McpServers | undefined;
  try {
    mcp = options.mcpServers && Object.keys(options.mcpServers).length > 0 ? await McpServers.start(options.mcpServers, log) : undefined;
    return await createWorkers(options, ownTools, toolQueues, bundlePath, mcp, log, memoryDatabase);
  } catch (error) {
    await mcp?.close();
    await memoryDatabase?.close();
    throw error;
  }
}

/**
 * An activity learns that it was cancelled (its session stopped) only from the answer to a heartbeat, and the SDK
 * sends heartbeats at most every 80% of the heartbeat timeout by default: 12 seconds for a model call, during which
 * a stopped session's provider went on writing, and billing, its answer. Every 2 seconds bounds that, at one
 * heartbeat call per running activity per 2 seconds.
 */
const promptCancellation = { maxHeartbeatThrottleInterval: '2 seconds' } as const;

async function createWorkers(
  options: SessionWorkersOptions,
  ownTools: ReturnType<typeof buildCatalogue>,
  toolQueues: ReturnType<typeof hostToolActivities>,
  bundlePath: string | undefined,
  mcp: McpServers | undefined,
  log: (line: string) => void,
  memoryDatabase: MemoryStoreAccess | undefined,
): Promise<SessionWorkers> {
  const { client, nativeConnection, namespace, taskQueue } = options;
  const hostTools = liveCatalogue(ownTools, mcp, log);
  const tracing = options.tracing?.workerOptions(bundlePath !== undefined);
  const worker = await Worker.create({
    connection: nativeConnection,
    namespace,
    taskQueue,
    ...tracing,
    ...(bundlePath ? { workflowBundle: { codePath: bundlePath } } : workflowSourceWorkerOptions()),
    activities: {
      ...createActivities({
        ...options.activities,
        client,
        model: options.model,
        searchAttributes: options.searchAttributes,
        hostTools,
        memoryDatabase,
      }),
      ...toolQueues.get(taskQueue),
      // MCP tools come and go with their servers' lists: their calls reach the worker's default activity.
      ...(mcp ? { default: mcpToolActivity(mcp) } : {}),
    },
    ...promptCancellation,
    ...options.workerOptions,
  });
  const toolWorkers: Worker[] = [];
  for (const [queue, activities] of toolQueues) {
    if (queue === taskQueue) continue;
    const interceptors = options.tracing ? { interceptors: { activity: options.tracing.activityInterceptors() } } : {};
    // The tool workers read and write the same payloads: they share the session worker's codec.
    const dataConverter = options.workerOptions?.dataConverter;
    toolWorkers.push(
      await Worker.create({
        connection: nativeConnection,
        namespace,
        taskQueue: queue,
        activities,
        ...interceptors,
        ...promptCancellation,
        ...(dataConverter ? { dataConverter } : {}),
      }),
    );
  }
  return {
    worker,
    async run() {
      // The tool workers stop with the main one (shutdown, or a signal the SDK handles).
      const tools = toolWorkers.map((toolWorker) => toolWorker.run());
      await worker
        .run()
        .finally(() => {
          for (const toolWorker of toolWorkers) if (toolWorker.getState() === 'RUNNING') toolWorker.shutdown();
        })
        .catch(async (error: unknown) => {
          await mcp?.close();
          await memoryDatabase?.close();
          throw error;
        });
      try {
        await Promise.all(tools);
      } finally {
        await mcp?.close();
        await memoryDatabase?.close();
        // The last spans (the worker's final activities and workflow tasks) are still batched.
        await options.tracing?.flush().catch((error: unknown) => log(`tracing: the last spans were not sent: ${String(error)}`));
      }
    },
    mcpStatus: () => mcp?.status() ?? [],
    shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
    },
  };
}

/** The PostgreSQL store, reached and its schema created before the worker starts, so a wrong URL fails at once. */
async function openMemoryDatabase(settings: MemoryStoreSettings | undefined): Promise<MemoryStoreAccess | undefined> {
  if (settings?.kind !== 'postgres') return undefined;
  const store = openPostgresMemoryStore(settings);
  try {
    await store.ready();
  } catch (error) {
    await store.close();
    throw new Error(`Cannot reach the memory database (memoryStore, ARBOR_MEMORY_DATABASE_URL): ${(error as Error).message}`, {
      cause: error,
    });
  }
  return store;
}
