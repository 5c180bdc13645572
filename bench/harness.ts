/**
 * What the Temporal benchmarks share: command-line arguments, a dev server (in memory or on a SQLite file) with
 * Arbor's search attributes, the zero-latency fake model, Arbor's worker and the bare floor's worker, and the
 * results file with the machine and its load.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Client, WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import {
  bundleWorkflowCode,
  DefaultLogger,
  Runtime,
  Worker,
  type WorkerOptions,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import OpenAI from 'openai';
import { Context } from '@temporalio/activity';
import { createActivities, type ActivityDependencies } from '../src/activities/index.js';
import { toolSpecs } from '../src/activities/tool-specs.js';
import { defaultSystemPrompt } from '../src/shared/prompts.js';
import { toolNames } from '../src/shared/tools/registry.js';
import { HistoryWatch } from '../src/client/events/history-watch.js';
import type { ModelSettings } from '../src/activities/model-settings.js';
import {
  costUsdKey,
  forkedFromKey,
  parentSessionIdKey,
  rootSessionIdKey,
  statusKey,
  titleKey,
  totalTokensKey,
} from '../src/shared/search-attributes.js';
import { locateBinary, locateBinaryPath, toSdkExecutable } from '../src/temporal/binaries.js';
import { devServerTuning } from '../src/temporal/dev-server.js';
import { workflowBundlerOptions } from '../src/worker/workflow-code.js';
import { FakeOpenAI, type FakeReply, type RecordedRequest } from '../test/support/fake-openai.js';
import { buildCatalogue } from '../src/tools/catalogue.js';
import { hostToolActivities } from '../src/tools/activities.js';
import type { ToolDefinition } from '../src/tools/define.js';

export type ServerVariant = 'in-memory' | 'sqlite';

export interface BenchArgs {
  /** The first positional argument as a number (a size or sample count), if given. */
  size: number | undefined;
  /** Every positional argument, as numbers. */
  sizes: number[];
  /** `--sqlite`: the dev server keeps its state in a SQLite file rather than in memory. */
  server: ServerVariant;
  /** `--no-search-attributes`: sessions keep Arbor's search attributes off, to see what they cost. */
  searchAttributes: boolean;
}

/** `npx tsx bench/<file>.ts [size] [--sqlite] [--no-search-attributes]` */
export function benchArgs(): BenchArgs {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { sqlite: { type: 'boolean', default: false }, 'no-search-attributes': { type: 'boolean', default: false } },
  });
  const sizes = positionals.map((text) => {
    const size = Number(text);
    if (!(Number.isFinite(size) && size > 0)) throw new Error(`sizes must be positive numbers, got "${text}"`);
    return size;
  });
  return { size: sizes[0], sizes, server: values.sqlite ? 'sqlite' : 'in-memory', searchAttributes: !values['no-search-attributes'] };
}

/** SDK warnings only; the core's own log (slow workflow task warnings under load) only at ERROR, to keep tables readable. */
export function quietRuntime(): void {
  Runtime.install({ logger: new DefaultLogger('WARN'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } } });
}

export interface DevServer {
  env: TestWorkflowEnvironment;
  variant: ServerVariant;
  teardown(): Promise<void>;
}

/** Starts a Temporal dev server (the Temporal CLI) with Arbor's search attributes, in memory or on a fresh SQLite file. */
export async function startDevServer(variant: ServerVariant): Promise<DevServer> {
  const directory = variant === 'sqlite' ? await mkdtemp(join(os.tmpdir(), 'arbor-bench-')) : undefined;
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: await locateBinaryPath('cli') },
      searchAttributes: [rootSessionIdKey, parentSessionIdKey, statusKey, titleKey, totalTokensKey, costUsdKey, forkedFromKey],
      ...(directory ? { dbFilename: join(directory, 'temporal.db') } : {}),
      // The settings `arbor dev` starts its server with, then BENCH_SERVER_ARGS: more dev server flags, e.g.
      // `--dynamic-config-value history.eventsCacheMaxSizeBytes=524288` (the server's default).
      extraArgs: [...devServerTuning, ...(process.env.BENCH_SERVER_ARGS ?? '').split(/\s+/).filter(Boolean)],
    },
  });
  return {
    env,
    variant,
    async teardown() {
      await env.teardown();
      if (directory) await rm(directory, { recursive: true, force: true });
    },
  };
}

let clockTicksPerSecond: number | undefined;

/**
 * CPU milliseconds used so far by the processes this one started that still run (the Temporal server); undefined off
 * Linux. Read before and after a measurement, it shows the server's share of the work beside the worker's.
 */
async function childProcessesCpuMs(): Promise<number | undefined> {
  if (process.platform !== 'linux') return undefined;
  clockTicksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  let ticks = 0;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // Fields after the command name (which may hold spaces): state ppid ... utime is the 12th, stime the 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[1]) === process.pid) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks * 1000) / clockTicksPerSecond;
}

export interface CpuReading {
  /** This process: the worker, the client and the fake model. */
  worker_ms: number;
  /** The Temporal server (Linux only). */
  server_ms: number | undefined;
}

/** Starts counting the CPU time of this process and of the Temporal server; `read()` gives what was used since. */
export async function cpuMeter(): Promise<{ read(): Promise<CpuReading> }> {
  const worker = process.cpuUsage();
  const server = await childProcessesCpuMs();
  return {
    async read() {
      const used = process.cpuUsage(worker);
      const serverNow = await childProcessesCpuMs();
      return {
        worker_ms: (used.user + used.system) / 1000,
        server_ms: server === undefined || serverNow === undefined ? undefined : serverNow - server,
      };
    },
  };
}

/** The mean CPU milliseconds per unit of work (a sub-agent, a session) over samples, worker and server. */
export function cpuPerUnit(readings: CpuReading[], units: number): { worker: number; server: number | null } {
  const mean = (values: number[]) => Math.round((values.reduce((sum, value) => sum + value, 0) / values.length / units) * 100) / 100;
  const server = readings.map((reading) => reading.server_ms);
  return {
    worker: mean(readings.map((reading) => reading.worker_ms)),
    server: server.every((ms) => ms !== undefined) ? mean(server as number[]) : null,
  };
}

/** The time-skipping test server (Temporal's Java test server), for work that spans long durable timers. */
export async function startTimeSkippingServer(): Promise<TestWorkflowEnvironment> {
  return TestWorkflowEnvironment.createTimeSkipping({ server: { executable: toSdkExecutable(await locateBinary('test-server')) } });
}

export interface FakeModel {
  fake: FakeOpenAI;
  settings: ModelSettings;
  /** A plain OpenAI client on the fake, for the floor's model call and the zero line. */
  openai: OpenAI;
}

/** The zero-latency OpenAI-compatible server on loopback; `route` answers every request. */
export async function startFakeModel(route: (request: RecordedRequest) => FakeReply = () => ({ content: 'ok' })): Promise<FakeModel> {
  const fake = await new FakeOpenAI().start();
  fake.fallback = (request) => {
    // Nothing here reads the recorded requests; long runs would keep every request body otherwise.
    fake.requests.length = 0;
    return route(request);
  };
  return {
    fake,
    settings: { apiKey: 'sk-bench', baseURL: fake.baseURL, defaultModel: 'bench', requestTimeoutMs: 30_000 },
    openai: new OpenAI({ apiKey: 'sk-bench', baseURL: fake.baseURL, maxRetries: 0 }),
  };
}

/** The last message of a model request, and the first user message (which names the session's task). */
export function lastMessage(request: RecordedRequest): RecordedRequest['body']['messages'][number] | undefined {
  return request.body.messages.at(-1);
}

export function firstUserText(request: RecordedRequest): string {
  return request.body.messages.find((message) => message.role === 'user')?.content ?? '';
}

let arborBundle: Promise<WorkflowBundleWithSourceMap> | undefined;
let floorBundle: Promise<WorkflowBundleWithSourceMap> | undefined;
const silent = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };

/** Arbor's workflow code, bundled once per process. */
export function arborWorkflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  arborBundle ??= bundleWorkflowCode({ ...workflowBundlerOptions(), logger: silent });
  return arborBundle;
}

/** The floor's workflows (bench/floor-workflows.ts), bundled once per process. */
export function floorWorkflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  floorBundle ??= bundleWorkflowCode({ workflowsPath: fileURLToPath(new URL('./floor-workflows.ts', import.meta.url)), logger: silent });
  return floorBundle;
}

/**
 * A worker of Arbor's sessions on `taskQueue`, with Arbor's own activities talking to the fake model. With `tools`
 * (host tools without a task queue of their own), it offers their catalogue and runs their `tool:<name>` activities,
 * as `createArborWorker({ tools })` does.
 */
export async function createArborBenchWorker(
  env: TestWorkflowEnvironment,
  model: FakeModel,
  taskQueue: string,
  options: {
    worker?: Partial<WorkerOptions>;
    activities?: Partial<ActivityDependencies>;
    searchAttributes?: boolean;
    tools?: readonly ToolDefinition[];
  } = {},
): Promise<Worker> {
  const searchAttributes = options.searchAttributes === false ? { searchAttributes: false } : {};
  const tools = options.tools ?? [];
  const hostTools = tools.length > 0 ? { hostTools: buildCatalogue(tools) } : {};
  return Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await arborWorkflowBundle(),
    activities: {
      ...createActivities({
        client: env.client,
        model: model.settings,
        search: { engines: [] },
        ...searchAttributes,
        ...hostTools,
        ...options.activities,
      }),
      ...hostToolActivities(tools, taskQueue).get(taskQueue),
    },
    ...options.worker,
  });
}

/** The floor's model call: one short message to the same fake model (a session's request also carries its conversation and tool specs). */
export function bareModelActivities(model: FakeModel) {
  return {
    async bareModelCall(text: string): Promise<string> {
      const reply = await model.openai.chat.completions.create({ model: 'bench', messages: [{ role: 'user', content: text }] });
      return reply.choices[0]?.message.content ?? '';
    },
  };
}

/**
 * A floor model call that sends what a session's does: the system prompt, its run's conversation so far and every
 * tool spec. It separates what the model request costs from what Temporal costs.
 */
export function conversationalModelActivities(model: Pick<FakeModel, 'openai'>) {
  const conversations = new Map<string, OpenAI.Chat.ChatCompletionMessageParam[]>();
  const tools = toolSpecs(toolNames);
  return {
    async bareModelCall(text: string): Promise<string> {
      const runId = Context.current().info.workflowExecution?.runId ?? '';
      const conversation = conversations.get(runId) ?? [];
      conversations.set(runId, conversation);
      conversation.push({ role: 'user', content: text });
      const reply = await model.openai.chat.completions.create({
        model: 'bench',
        messages: [{ role: 'system', content: defaultSystemPrompt }, ...conversation],
        tools,
      });
      const content = reply.choices[0]?.message.content ?? '';
      conversation.push({ role: 'assistant', content });
      return content;
    },
  };
}

/** A worker of the floor's bare workflows on `taskQueue`. */
export async function createFloorWorker(
  env: TestWorkflowEnvironment,
  taskQueue: string,
  activities: object,
  options: Partial<WorkerOptions> = {},
): Promise<Worker> {
  return Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await floorWorkflowBundle(),
    activities,
    ...options,
  });
}

/** Polls `predicate` every `intervalMs` until it holds; fails after `timeoutMs`. */
export async function waitFor(predicate: () => Promise<boolean> | boolean, intervalMs = 2, timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}

/**
 * A waiter for one workflow (over its continue-as-new runs): asks `done` again each time the history grows, sleeping
 * on the server's history long poll in between, as `SessionHandle.events()` does. Unlike polling a query every few
 * milliseconds, waiting puts no queries on the worker whose turns are being timed.
 */
export function historyWaiter(client: Client, workflowId: string) {
  let watch: HistoryWatch | undefined;
  return async function waitUntil(done: () => Promise<boolean>): Promise<void> {
    for (;;) {
      if (await done()) return;
      watch ??= new HistoryWatch(client, workflowId, (await client.workflow.getHandle(workflowId).describe()).runId);
      if ((await watch.next()) === 'closed') watch = undefined;
    }
  };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The workflows in `ids` that are still running (describe each; a missing one is not running). */
export async function stillRunning(client: Client, ids: readonly string[]): Promise<string[]> {
  const running: string[] = [];
  for (let i = 0; i < ids.length; i += 50) {
    const batch = ids.slice(i, i + 50);
    const statuses = await Promise.all(
      batch.map(async (id) => {
        try {
          return (await client.workflow.getHandle(id).describe()).status.name;
        } catch {
          return 'NOT_FOUND';
        }
      }),
    );
    statuses.forEach((status, index) => status === 'RUNNING' && running.push(batch[index]!));
  }
  return running;
}

export function machine() {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpu_model: cpus[0]?.model ?? 'unknown',
    memory_gb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
  };
}

/** The 1, 5 and 15 minute load averages, as `uptime` prints them. */
export const loadAverage = () => os.loadavg().map((load) => Math.round(load * 100) / 100);

/** Writes bench/results/<name>.json with the date, the machine and its load. */
export async function writeResults(name: string, body: Record<string, unknown>): Promise<string> {
  const url = new URL(`./results/${name}.json`, import.meta.url);
  await mkdir(new URL('./results/', import.meta.url), { recursive: true });
  const serverArgs = process.env.BENCH_SERVER_ARGS ? { server_args: process.env.BENCH_SERVER_ARGS } : {};
  await writeFile(
    url,
    `${JSON.stringify({ date: new Date().toISOString(), machine: machine(), load_average_at_end: loadAverage(), ...serverArgs, ...body }, null, 2)}\n`,
  );
  return fileURLToPath(url);
}

/** The results file name of a dev-server benchmark: one per server variant (and one without search attributes). */
export const resultName = (bench: string, variant: ServerVariant, searchAttributes = true) =>
  `${bench}${variant === 'in-memory' ? '' : '.sqlite'}${searchAttributes ? '' : '.no-search-attributes'}`;

type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

/** The events of each run of a workflow, one run at a time, following continue-as-new from `firstRunId`. */
export async function* runHistories(client: Client, workflowId: string, firstRunId: string): AsyncGenerator<HistoryEvent[]> {
  let runId: string | undefined = firstRunId;
  while (runId) {
    const events: HistoryEvent[] = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    yield events;
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
}

const eventTimeMs = (event: HistoryEvent) => Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6;

/**
 * What went wrong in a workflow's history, over all its runs: activity attempts after the first, failed and timed-out
 * activities and workflow tasks (with the causes of the first failures).
 */
export async function historyTrouble(client: Client, workflowId: string, firstRunId: string) {
  const trouble = {
    runs: 0,
    events: 0,
    activity_retries: 0,
    activity_failures: 0,
    workflow_task_failures: 0,
    workflow_task_failure_messages: [] as string[],
    /** Failed workflow tasks whose cause is UnhandledCommand: a message that reached the server while the task ran. */
    unhandled_command_failures: 0,
    workflow_task_timeouts: 0,
    workflow_task_timeout_kinds: {} as Record<string, number>,
  };
  for await (const events of runHistories(client, workflowId, firstRunId)) {
    trouble.runs += 1;
    trouble.events += events.length;
    trouble.activity_retries += events.filter((event) => (event.activityTaskStartedEventAttributes?.attempt ?? 1) > 1).length;
    trouble.activity_failures += events.filter(
      (event) => event.activityTaskFailedEventAttributes || event.activityTaskTimedOutEventAttributes,
    ).length;
    trouble.workflow_task_failures += events.filter((event) => event.workflowTaskFailedEventAttributes).length;
    for (const event of events) {
      const failed = event.workflowTaskFailedEventAttributes;
      if (failed?.cause === proto.temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND) {
        trouble.unhandled_command_failures += 1;
      }
      if (failed && trouble.workflow_task_failure_messages.length < 3) {
        const cause = proto.temporal.api.enums.v1.WorkflowTaskFailedCause[failed.cause ?? 0] ?? String(failed.cause);
        trouble.workflow_task_failure_messages.push(`${cause}: ${failed.failure?.message ?? ''}`.slice(0, 300));
      }
    }
    for (const event of events) {
      const timedOut = event.workflowTaskTimedOutEventAttributes;
      if (!timedOut) continue;
      trouble.workflow_task_timeouts += 1;
      const kind = proto.temporal.api.enums.v1.TimeoutType[timedOut.timeoutType ?? 0] ?? String(timedOut.timeoutType);
      trouble.workflow_task_timeout_kinds[kind] = (trouble.workflow_task_timeout_kinds[kind] ?? 0) + 1;
    }
  }
  return trouble;
}

/** A turn as the server recorded it, and whether it ended in a later run than it began (it continued as new). */
export interface TurnInHistory {
  ms: number;
  continuedAsNew: boolean;
}

/**
 * Turn times as the server recorded them, over all runs of a workflow: for each signal named `signalName`, from its
 * event to the last completed workflow task before the next such signal. Unlike a client polling a query, this sees
 * only the workflow's own progress. A turn that continued as new ends with the new run's first workflow task.
 */
export async function turnTimesInHistory(
  client: Client,
  workflowId: string,
  firstRunId: string,
  signalName: string,
): Promise<TurnInHistory[]> {
  const turns: TurnInHistory[] = [];
  let signalAt: number | undefined;
  let signalRun = 0;
  let lastTaskAt: number | undefined;
  let lastTaskRun = 0;
  let run = 0;
  const close = () => {
    if (signalAt !== undefined && lastTaskAt !== undefined && lastTaskAt >= signalAt) {
      turns.push({ ms: lastTaskAt - signalAt, continuedAsNew: lastTaskRun > signalRun });
    }
  };
  for await (const events of runHistories(client, workflowId, firstRunId)) {
    run += 1;
    for (const event of events) {
      if (event.workflowExecutionSignaledEventAttributes?.signalName === signalName) {
        close();
        signalAt = eventTimeMs(event);
        signalRun = run;
        lastTaskAt = undefined;
      } else if (event.workflowTaskCompletedEventAttributes) {
        lastTaskAt = eventTimeMs(event);
        lastTaskRun = run;
      }
    }
  }
  close();
  return turns;
}

/** As the server recorded it: milliseconds from the cancel request of a workflow (one run) to its close. */
export async function cancellationSpanInHistory(client: Client, workflowId: string): Promise<number> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const requested = events.find((event) => event.workflowExecutionCancelRequestedEventAttributes);
  const closed = events.at(-1);
  if (!requested || !closed?.workflowExecutionCanceledEventAttributes) throw new Error(`${workflowId} was not cancelled`);
  return eventTimeMs(closed) - eventTimeMs(requested);
}

/**
 * Where a parent's time went, as the server recorded it over all its runs (measuring this way adds no work to the
 * worker being measured): when its last child had started and when the last child's report arrived, in milliseconds
 * from the first signal or accepted update named `from`; and its slowest workflow task (started to completed).
 */
export async function parentTimeline(client: Client, workflowId: string, firstRunId: string, from: string, report: string) {
  let origin: number | undefined;
  let lastChildStarted = 0;
  let lastReport = 0;
  let slowestTask = 0;
  let taskStarted: number | undefined;
  for await (const events of runHistories(client, workflowId, firstRunId)) {
    for (const event of events) {
      const at = eventTimeMs(event);
      const message =
        event.workflowExecutionSignaledEventAttributes?.signalName ??
        event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name;
      if (message === from) origin ??= at;
      if (origin === undefined) continue;
      if (event.childWorkflowExecutionStartedEventAttributes) lastChildStarted = at - origin;
      if (event.workflowExecutionSignaledEventAttributes?.signalName === report) lastReport = at - origin;
      if (event.workflowTaskStartedEventAttributes) taskStarted = at;
      if (event.workflowTaskCompletedEventAttributes && taskStarted !== undefined) slowestTask = Math.max(slowestTask, at - taskStarted);
    }
  }
  if (origin === undefined || lastReport === 0) throw new Error(`no ${from} then ${report} in the history of ${workflowId}`);
  return {
    last_child_started_ms: Math.round(lastChildStarted),
    last_report_ms: lastReport,
    slowest_workflow_task_ms: Math.round(slowestTask),
  };
}
