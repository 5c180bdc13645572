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
import { prebuiltWorkflowBundlePath, workflowSourceWorkerOptions } from './workflow-code.js';

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
  /** Activity settings otherwise read from the worker's environment (search engines, question timeout...). */
  activities?: Partial<Omit<ActivityDependencies, 'client' | 'model' | 'searchAttributes' | 'hostTools'>>;
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
  const bundlePath = options.workflowBundlePath ?? prebuiltWorkflowBundlePath();
  const log = options.log ?? (() => {});
  const mcp =
    options.mcpServers && Object.keys(options.mcpServers).length > 0 ? await McpServers.start(options.mcpServers, log) : undefined;
  try {
    return await createWorkers(options, ownTools, toolQueues, bundlePath, mcp, log);
  } catch (error) {
    await mcp?.close();
    throw error;
  }
}

async function createWorkers(
  options: SessionWorkersOptions,
  ownTools: ReturnType<typeof buildCatalogue>,
  toolQueues: ReturnType<typeof hostToolActivities>,
  bundlePath: string | undefined,
  mcp: McpServers | undefined,
  log: (line: string) => void,
): Promise<SessionWorkers> {
  const { client, nativeConnection, namespace, taskQueue } = options;
  const hostTools = liveCatalogue(ownTools, mcp, log);
  const worker = await Worker.create({
    connection: nativeConnection,
    namespace,
    taskQueue,
    ...(bundlePath ? { workflowBundle: { codePath: bundlePath } } : workflowSourceWorkerOptions()),
    activities: {
      ...createActivities({ ...options.activities, client, model: options.model, searchAttributes: options.searchAttributes, hostTools }),
      ...toolQueues.get(taskQueue),
      // MCP tools come and go with their servers' lists: their calls reach the worker's default activity.
      ...(mcp ? { default: mcpToolActivity(mcp) } : {}),
    },
    ...options.workerOptions,
  });
  const toolWorkers: Worker[] = [];
  for (const [queue, activities] of toolQueues) {
    if (queue === taskQueue) continue;
    // The tool workers read and write the same payloads: they share the session worker's codec.
    const dataConverter = options.workerOptions?.dataConverter;
    toolWorkers.push(
      await Worker.create({
        connection: nativeConnection,
        namespace,
        taskQueue: queue,
        activities,
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
          throw error;
        });
      try {
        await Promise.all(tools);
      } finally {
        await mcp?.close();
      }
    },
    mcpStatus: () => mcp?.status() ?? [],
    shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
    },
  };
}
