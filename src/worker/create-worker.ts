import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker, type WorkerOptions } from '@temporalio/worker';
import { modelSettingsFromEnv, type ModelSettings } from '../activities/model-settings.js';
import { loadConnectionSettings, type ConnectionSettings } from '../client/connection.js';
import { dataConverterOption } from '../codec/data-converter.js';
import { ensureSearchAttributes, supportsSearchAttributes } from '../temporal/search-attribute-registration.js';
import { buildCatalogue } from '../tools/catalogue.js';
import { createSessionWorkers } from './session-workers.js';
import type { ToolDefinition } from '../tools/define.js';
import { automationDisallowedToolsFromEnv, checkAutomationDisallowedTools } from '../activities/automation-disallowed-tools.js';
import { webFetchFromEnv, type WebFetchSettings } from '../activities/web-fetch-settings.js';
import { toolSearchLimits, type ToolSearchSettings } from '../activities/tool-search-settings.js';
import { checkMcpServers, mcpServersFromEnv, type McpServersConfig } from '../mcp/config.js';
import type { McpServerStatus } from '../mcp/mcp-servers.js';
import { checkMemoryStore, memoryStoreFromEnv, type MemoryStoreSettings } from '../client/access/memory-store-settings.js';
import { tracingSettingsFromEnv, type TracingSettings } from '../tracing/tracing-settings.js';
import { loadTracing } from '../tracing/load-tracing.js';

export interface ArborWorkerOptions {
  connection?: ConnectionSettings;
  model?: ModelSettings;
  /** Register Arbor's search attributes on start (default true). */
  registerSearchAttributes?: boolean;
  /** A workflow bundle built beforehand (default: dist's, else the workflow code is bundled at start). */
  workflowBundlePath?: string;
  /** Extra Worker options, for tests (e.g. a smaller workflow cache). */
  workerOptions?: Partial<WorkerOptions>;
  /**
   * Your own tools (defineHostTool, defineRemoteTool from `arbor/tools`): offered to the sessions this worker starts,
   * host tools run here (on their own taskQueue, when they name one, by an extra worker polling it). A bad definition
   * throws a ToolDefinitionError before anything connects.
   */
  tools?: readonly ToolDefinition[];
  /**
   * Tools no automation run may use, whatever its automation names (built-in or host tool names): an automation's
   * session, and its sub-agents, are never given them. Default: ARBOR_AUTOMATION_DISALLOWED_TOOLS (comma-separated),
   * else none. A name no tool can have throws before anything connects.
   */
  automationDisallowedTools?: readonly string[];
  /**
   * Whether new sessions are offered webFetch (`true`, or its settings: `{ extractionThresholdBytes }`, default 50,000),
   * as the tool specification has it only where the worker enables it. Default: ARBOR_WEB_FETCH (`on`/`off`), off
   * when unset; the CLI's workers (`arbor run`, `chat`, `dev`, `worker`) offer it unless ARBOR_WEB_FETCH=off.
   */
  webFetch?: boolean | WebFetchSettings;
  /**
   * When a session's host tools are deferred behind ToolSearch (README "ToolSearch"): more than `maxHostTools` of them
   * (default 40) or more than `maxSchemaTokens` of specs (default 20,000); `false`: never. Default: ARBOR_TOOL_SEARCH
   * (`off` turns it off), ARBOR_TOOL_SEARCH_MAX_TOOLS, ARBOR_TOOL_SEARCH_MAX_SCHEMA_TOKENS.
   */
  toolSearch?: ToolSearchSettings | false;
  /** A folder of skills, one Markdown file each, for the Skill tool (README "Skills"). Default: ARBOR_SKILLS_DIR; none: no Skill tool. */
  skillsDir?: string;
  /**
   * MCP servers whose tools the sessions are offered as host tools named `<server>__<tool>`: stdio servers
   * (`command`, `args`, `env`, `cwd`), started once by this worker and restarted when they die, and Streamable HTTP
   * servers (`url`, `headers` whose `${NAME}` come from the worker's environment). Default: ARBOR_MCP_SERVERS (inline
   * JSON, or the path of a JSON or YAML file), else none. A bad configuration throws an McpConfigError before
   * anything connects; a server that cannot start does not stop the worker (its tools' calls are tool errors).
   */
  mcpServers?: McpServersConfig;
  /**
   * OpenTelemetry traces over OTLP/HTTP (README "Tracing"): `{ content }` turns them on (`content`: prompts and
   * replies in model spans), `false` off. Default: on when OTEL_EXPORTER_OTLP_ENDPOINT or
   * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set (and OTEL_SDK_DISABLED is not `true`), content with ARBOR_TRACE_CONTENT=1.
   */
  tracing?: TracingSettings | false;
  /** Where lines about the MCP servers go (default: stderr). */
  log?: (line: string) => void;
  /**
   * Where owners' memories are kept: `{ kind: 'workflow' }` (one workflow per owner, at most 250 memories) or
   * `{ kind: 'postgres', databaseUrl, maxMemoriesPerOwner? }` (README "Memory in PostgreSQL"). Default:
   * ARBOR_MEMORY_STORE, ARBOR_MEMORY_DATABASE_URL and ARBOR_MEMORY_MAX_PER_OWNER, else the workflow store. A bad
   * setting throws before anything connects; a database that cannot be reached fails the worker's start.
   */
  memoryStore?: MemoryStoreSettings;
}

export interface ArborWorker {
  worker: Worker;
  settings: ConnectionSettings;
  /** Runs until shutdown() or a signal the SDK handles; closes the connections afterwards. */
  run(): Promise<void>;
  shutdown(): void;
  /** Each configured MCP server: its state (`starting`, `ready`, `down`, `closed`), tool count and problem. */
  mcpStatus(): McpServerStatus[];
}

/** Connects to Temporal, registers Arbor's search attributes and creates a worker for the session workflows. */
export async function createArborWorker(options: ArborWorkerOptions = {}): Promise<ArborWorker> {
  const tools = options.tools ?? [];
  // A bad tool definition throws here, before anything connects.
  buildCatalogue(tools);
  const settings = options.connection ?? loadConnectionSettings();
  const model = options.model ?? modelSettingsFromEnv();
  // Checked before anything connects, like the tool definitions.
  const automationDisallowedTools =
    options.automationDisallowedTools === undefined
      ? automationDisallowedToolsFromEnv()
      : checkAutomationDisallowedTools(options.automationDisallowedTools);
  // Checked before anything connects: a bad limit (option or environment variable) throws here.
  toolSearchLimits(options.toolSearch);
  const mcpServers = options.mcpServers === undefined ? mcpServersFromEnv() : checkMcpServers(options.mcpServers);
  const memoryStore = options.memoryStore === undefined ? memoryStoreFromEnv() : checkMemoryStore(options.memoryStore);
  const webFetch = options.webFetch === undefined ? webFetchFromEnv() : options.webFetch === true ? {} : options.webFetch;
  const tracingSettings = options.tracing === undefined ? tracingSettingsFromEnv() : options.tracing || undefined;
  const tracing = await loadTracing(tracingSettings);
  const clientConnection = await Connection.connect(settings.connectionOptions as Parameters<typeof Connection.connect>[0]);
  let nativeConnection: NativeConnection | undefined;
  try {
    const searchAttributes = await supportsSearchAttributes(clientConnection, settings.namespace);
    if (searchAttributes && options.registerSearchAttributes !== false) await ensureSearchAttributes(clientConnection, settings.namespace);
    const client = new Client({
      connection: clientConnection,
      namespace: settings.namespace,
      ...(tracing ? { interceptors: tracing.clientInterceptors() } : {}),
      ...dataConverterOption(settings.encryptionKeys),
    });
    nativeConnection = await NativeConnection.connect(settings.connectionOptions);
    const workers = await createSessionWorkers({
      client,
      nativeConnection,
      namespace: settings.namespace,
      taskQueue: settings.taskQueue,
      model,
      tools,
      mcpServers,
      log: options.log ?? ((line) => process.stderr.write(`${line}\n`)),
      searchAttributes,
      workflowBundlePath: options.workflowBundlePath,
      workerOptions: { ...dataConverterOption(settings.encryptionKeys), ...options.workerOptions },
      memoryStore,
      tracing,
      activities: {
        automationDisallowedTools,
        webFetch,
        ...(options.toolSearch !== undefined ? { toolSearch: options.toolSearch } : {}),
        ...(options.skillsDir !== undefined ? { skillsDir: options.skillsDir } : {}),
      },
    });
    const connection = nativeConnection;
    return {
      worker: workers.worker,
      settings,
      async run() {
        try {
          await workers.run();
        } finally {
          await connection.close();
          await clientConnection.close();
        }
      },
      shutdown: () => workers.shutdown(),
      mcpStatus: () => workers.mcpStatus(),
    };
  } catch (error) {
    await nativeConnection?.close();
    await clientConnection.close();
    throw error;
  }
}
