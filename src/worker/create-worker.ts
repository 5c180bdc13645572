import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../activities/index.js';
import { modelSettingsFromEnv, type ModelSettings } from '../activities/model-settings.js';
import { loadConnectionSettings, type ConnectionSettings } from '../client/connection.js';
import { ensureSearchAttributes, supportsSearchAttributes } from '../temporal/search-attribute-registration.js';
import { prebuiltWorkflowBundlePath, workflowSourceWorkerOptions } from './workflow-code.js';

export interface ArborWorkerOptions {
  connection?: ConnectionSettings;
  model?: ModelSettings;
  /** Register Arbor's search attributes on start (default true). */
  registerSearchAttributes?: boolean;
  /** A workflow bundle built beforehand (default: dist's, else the workflow code is bundled at start). */
  workflowBundlePath?: string;
  /** Extra Worker options, for tests (e.g. a smaller workflow cache). */
  workerOptions?: Partial<WorkerOptions>;
}

export interface ArborWorker {
  worker: Worker;
  settings: ConnectionSettings;
  /** Runs until shutdown() or a signal the SDK handles; closes the connections afterwards. */
  run(): Promise<void>;
  shutdown(): void;
}

/** Connects to Temporal, registers Arbor's search attributes and creates a worker for the session workflows. */
export async function createArborWorker(options: ArborWorkerOptions = {}): Promise<ArborWorker> {
  const settings = options.connection ?? loadConnectionSettings();
  const model = options.model ?? modelSettingsFromEnv();
  const clientConnection = await Connection.connect(settings.connectionOptions as Parameters<typeof Connection.connect>[0]);
  let nativeConnection: NativeConnection | undefined;
  try {
    const searchAttributes = await supportsSearchAttributes(clientConnection, settings.namespace);
    if (searchAttributes && options.registerSearchAttributes !== false) await ensureSearchAttributes(clientConnection, settings.namespace);
    const client = new Client({ connection: clientConnection, namespace: settings.namespace });
    nativeConnection = await NativeConnection.connect(settings.connectionOptions);
    const bundlePath = options.workflowBundlePath ?? prebuiltWorkflowBundlePath();
    const worker = await Worker.create({
      connection: nativeConnection,
      namespace: settings.namespace,
      taskQueue: settings.taskQueue,
      ...(bundlePath ? { workflowBundle: { codePath: bundlePath } } : workflowSourceWorkerOptions()),
      activities: createActivities({ client, model, searchAttributes }),
      ...options.workerOptions,
    });
    const connection = nativeConnection;
    return {
      worker,
      settings,
      async run() {
        try {
          await worker.run();
        } finally {
          await connection.close();
          await clientConnection.close();
        }
      },
      shutdown() {
        if (worker.getState() === 'RUNNING') worker.shutdown();
      },
    };
  } catch (error) {
    await nativeConnection?.close();
    await clientConnection.close();
    throw error;
  }
}
