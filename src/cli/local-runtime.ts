import { resolve } from 'node:path';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { connectClient, type ConnectionSettings } from '../client/connection.js';
import { startDevServer, isServerReachable, type DevServer } from '../temporal/dev-server.js';
import type { ArborWorker } from '../worker/create-worker.js';
import { installQuietRuntime } from './native-runtime.js';
import { webFetchFromEnv } from '../activities/web-fetch-settings.js';
import { checkServerAnswers } from './server-reach.js';
import { describeRunningServer, embeddedDatabase, takeLock } from './dev-lock.js';
import { UsageError } from './usage-error.js';
import { loadToolModules } from './tool-modules.js';
import type { ToolDefinition } from '../tools/define.js';
import { mcpServersFromEnv, type McpServersConfig } from '../mcp/config.js';

export { embeddedDatabase };
export const embeddedUiPort = 8233;

/** What `arbor dev`, `run` and `chat` brought up in this process, to be stopped on exit. */
export interface LocalRuntime {
  settings: ConnectionSettings;
  server?: DevServer;
  worker?: ArborWorker;
  workerRun?: Promise<void>;
  stop(): Promise<void>;
}

/** Starts the embedded dev server (SQLite under .arbor/, Web UI on 8233). */
export async function startEmbeddedServer(
  settings: ConnectionSettings,
  log: (line: string) => void,
  options: { port?: number; uiPort?: number; dbFile?: string } = {},
): Promise<{ server: DevServer; settings: ConnectionSettings }> {
  const dbFile = options.dbFile ?? embeddedDatabase;
  const port = options.port ?? 7233;
  // One server per state file: a second would share its SQLite file. The lock next to it says where the first runs.
  const lock = takeLock(dbFile, {
    address: `127.0.0.1:${port}`,
    namespace: settings.namespace,
    ui_url: null,
    task_queue: settings.taskQueue,
  });
  if ('running' in lock) throw new UsageError(describeRunningServer(dbFile, lock.running));
  const release = () => lock.held.release();
  process.once('exit', release);
  let server: DevServer;
  try {
    server = await startDevServer({
      port,
      uiPort: options.uiPort ?? embeddedUiPort,
      dbFilename: resolve(dbFile),
      namespace: settings.namespace,
      log,
    });
  } catch (error) {
    release();
    throw error;
  }
  lock.held.update({
    address: server.address,
    namespace: settings.namespace,
    ui_url: server.uiUrl ?? null,
    task_queue: settings.taskQueue,
  });
  const stopServer = server.stop;
  server.stop = async () => {
    try {
      await stopServer();
    } finally {
      release();
    }
  };
  const address = server.address;
  return { server, settings: { ...settings, address, connectionOptions: { ...settings.connectionOptions, address } } };
}

/** Starts a worker in this process; resolves once it is polling. */
export async function startInProcessWorker(
  settings: ConnectionSettings,
  tools: readonly ToolDefinition[] = [],
  mcpServers: McpServersConfig = mcpServersFromEnv(),
): Promise<{ worker: ArborWorker; run: Promise<void> }> {
  await installQuietRuntime();
  // Loaded here, not at the top: most commands never start a worker (see installQuietRuntime).
  const { createArborWorker } = await import('../worker/create-worker.js');
  const worker = await createArborWorker({ connection: settings, tools, mcpServers, webFetch: webFetchFromEnv(process.env, true) });
  const run = worker.run();
  return { worker, run };
}

/**
 * For `run` and `chat`: uses the configured server when it answers, else starts the embedded one (unless the user
 * named a server, which then must answer); starts an in-process worker when no live worker polls the task queue.
 */
export async function ensureLocalRuntime(
  settings: ConnectionSettings,
  log: (line: string) => void,
  options: { toolModules?: readonly string[] } = {},
): Promise<LocalRuntime> {
  // Loaded (and checked) first: a bad tools module stops the command before anything starts.
  const toolModules = options.toolModules ?? [];
  const tools = await loadToolModules(toolModules);
  const mcpServers = mcpServersFromEnv();
  let server: DevServer | undefined;
  if (!(await isServerReachable(settings.address, 1500))) {
    if (settings.addressGiven) await checkServerAnswers(settings.address);
    log(`No Temporal server at ${settings.address}; starting the embedded dev server (state in ${embeddedDatabase}).`);
    ({ server, settings } = await startEmbeddedServer(settings, log));
  }
  let worker: ArborWorker | undefined;
  let workerRun: Promise<void> | undefined;
  const client = await connectClient(settings);
  try {
    if (!(await hasLiveWorker(client, settings))) {
      log(`No worker polls task queue "${settings.taskQueue}"; starting one in this process.`);
      ({ worker, run: workerRun } = await startInProcessWorker(settings, tools, mcpServers));
    } else if (toolModules.length > 0) {
      log(
        `A worker already polls task queue "${settings.taskQueue}": the tools of ${toolModules.join(', ')} are served only where that worker serves them.`,
      );
    } else if (Object.keys(mcpServers).length > 0) {
      log(
        `A worker already polls task queue "${settings.taskQueue}": the MCP servers of ARBOR_MCP_SERVERS are used only where that worker uses them.`,
      );
    }
  } catch (error) {
    await server?.stop();
    throw error;
  } finally {
    await client.connection.close();
  }
  const runtime: LocalRuntime = {
    settings,
    ...(server ? { server } : {}),
    ...(worker ? { worker } : {}),
    ...(workerRun ? { workerRun } : {}),
    async stop() {
      worker?.shutdown();
      await workerRun?.catch(() => undefined);
      await server?.stop();
    },
  };
  // Ctrl-C while a command waits: drain the worker and stop the server before exiting.
  const interrupt = () => void runtime.stop().finally(() => process.exit(130));
  process.once('SIGINT', interrupt).once('SIGTERM', interrupt);
  return runtime;
}

/** A worker counts as live when it polled the workflow task queue within the last long-poll period. */
async function hasLiveWorker(client: Client, settings: ConnectionSettings): Promise<boolean> {
  const response = await client.workflowService.describeTaskQueue({
    namespace: settings.namespace,
    taskQueue: { name: settings.taskQueue, kind: proto.temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  const now = Date.now();
  return (response.pollers ?? []).some((poller) => {
    const seconds = Number(poller.lastAccessTime?.seconds ?? 0);
    return now - seconds * 1000 < 75_000;
  });
}
