import { Command } from 'commander';
import { modelSettingsFromEnv, type ContextWindows } from '../../activities/model-settings.js';
import { doctorReport, type DoctorReport } from '../../temporal/doctor.js';
import { isServerReachable } from '../../temporal/dev-server.js';
import { createOutput } from '../output.js';
import { connectionSettingsFrom, withConnectionFlags, type ConnectionFlags } from '../options.js';
import { withClient } from '../with-client.js';
import { workersPolling, type PollingWorker } from '../../temporal/task-queue-workers.js';
import type { ConnectionSettings } from '../../client/connection.js';
import { immediateConnectFailure, unreachableServer } from '../server-reach.js';
import { describeMcpProbe, probeMcpServers, type McpProbe } from '../../mcp/probe.js';

interface DoctorFlags extends ConnectionFlags {
  json?: boolean;
  install?: boolean;
}

export const doctorCommand = withConnectionFlags(
  new Command('doctor')
    .description('report the Temporal binaries, the server, the model and the MCP servers Arbor would use')
    .option('--no-install', 'only look for the binaries, install nothing')
    .option('--json', 'print one JSON object'),
).action(async (flags: DoctorFlags) => {
  const output = createOutput(Boolean(flags.json));
  const settings = connectionSettingsFrom(flags);
  const model = modelSettingsFromEnv();
  const [binaries, failure, mcp] = await Promise.all([
    doctorReport({ install: flags.install !== false, log: (line) => output.progress(line) }),
    immediateConnectFailure(settings.address, 1500),
    probeMcpServers(),
  ]);
  const reachable = failure === null && (await isServerReachable(settings.address, 1500));
  const workers = reachable ? await pollingWorkers(settings) : null;
  const report = {
    binaries,
    temporal: {
      address: settings.address,
      namespace: settings.namespace,
      task_queue: settings.taskQueue,
      reachable,
      address_from_environment: settings.addressGiven,
      workers,
    },
    model: {
      default_model: model.defaultModel,
      base_url: model.baseURL ?? (model.apiKey ? 'https://api.openai.com/v1' : null),
      api_key: model.apiKey ? 'set' : 'not set',
      context_tokens: model.contextTokens ?? null,
      summary_model: model.summaries === false ? null : (model.summaryModel ?? null),
      summaries: model.summaries !== false,
    },
    mcp_servers: 'servers' in mcp ? mcp.servers : { problem: mcp.problem },
    encryption: encryptionReport(settings),
  };
  output.result(report, renderDoctor(report, binaries, mcp));
  // Exit 1 when sessions could not run: no server, or no worker polling its task queue.
  if (!reachable) {
    process.stderr.write(`arbor: ${unreachableServer(settings.address, failure ?? 'no answer within 1.5 s').message}\n`);
    process.exitCode = 1;
  } else if (!hasLiveWorker(workers)) {
    process.stderr.write(
      `arbor: no worker polls task queue "${settings.taskQueue}" on ${settings.address}: start one with \`arbor worker\`, or use \`arbor dev\`.\n`,
    );
    process.exitCode = 1;
  }
});

function hasLiveWorker(workers: PollingWorker[] | string | null): boolean {
  return Array.isArray(workers) && workers.some((worker) => (worker.last_seen_seconds_ago ?? 0) <= stalePollSeconds);
}

function encryptionReport(settings: ConnectionSettings): {
  payloads: 'encrypted' | 'not encrypted';
  key_ids: string[];
  encrypting_key: string | null;
} {
  const ids = (settings.encryptionKeys ?? []).map((key) => key.id);
  return { payloads: ids.length > 0 ? 'encrypted' : 'not encrypted', key_ids: ids, encrypting_key: ids[0] ?? null };
}

function describeEncryption(encryption: ReturnType<typeof encryptionReport>): string {
  if (encryption.encrypting_key === null) {
    return 'Payloads: not encrypted (ARBOR_ENCRYPTION_KEYS is not set: conversations are stored in Temporal in plain text)';
  }
  return `Payloads: encrypted (AES-256-GCM) with key ${encryption.encrypting_key}; keys that decrypt: ${encryption.key_ids.join(', ')}`;
}

function renderDoctor(
  report: { temporal: Record<string, unknown>; model: Record<string, unknown>; encryption: ReturnType<typeof encryptionReport> },
  binaries: DoctorReport,
  mcp: McpProbe,
): string {
  const lines = [`Arbor cache ${binaries.cacheDir}`];
  for (const [label, binary] of [
    ['Temporal CLI', binaries.cli],
    ['Time-skipping test server', binaries.testServer],
  ] as const) {
    lines.push(
      binary.found
        ? `${label}: ${binary.path} (from ${binary.source}${binary.version ? `, ${binary.version}` : ''})`
        : binary.source === 'sdk-download'
          ? `${label}: not on this machine; @temporalio/testing will download it when first needed`
          : `${label}: not found`,
    );
    for (const way of binary.tried) lines.push(`  tried ${way.way}: ${way.reason}`);
  }
  lines.push(
    `Temporal server ${report.temporal.address} (namespace ${report.temporal.namespace}): ${report.temporal.reachable ? 'reachable' : 'not reachable'}`,
    `Task queue ${report.temporal.task_queue}: ${describeWorkers(report.temporal.workers as PollingWorker[] | string | null)}`,
    `Model ${report.model.default_model}${report.model.base_url ? ` at ${report.model.base_url}` : ''}, API key ${report.model.api_key}`,
    `Context windows: ${describeContextWindows(report.model.context_tokens as ContextWindows | null)}`,
    `Summaries: ${report.model.summaries === false ? 'off (ARBOR_SUMMARIES=off)' : typeof report.model.summary_model === 'string' ? `written by ${report.model.summary_model} (ARBOR_SUMMARY_MODEL)` : "written by each session's own model"}`,
    ...describeMcpProbe(mcp),
    describeEncryption(report.encryption),
  );
  return lines.join('\n');
}

const stalePollSeconds = 90;

/** The workers polling the task queue, or why they could not be asked about. */
async function pollingWorkers(settings: ConnectionSettings): Promise<PollingWorker[] | string> {
  try {
    return await withClient(settings, (client) => workersPolling(client.temporal, settings.taskQueue));
  } catch (error) {
    return `could not ask the server (${error instanceof Error ? error.message : String(error)})`;
  }
}

function describeWorkers(workers: PollingWorker[] | string | null): string {
  if (workers === null) return 'no server to ask about workers';
  if (typeof workers === 'string') return workers;
  const startOne = 'sessions will not run until one does (start one with `arbor worker`, or use `arbor dev`)';
  if (workers.length === 0) return `no worker is polling it; ${startOne}`;
  // A running worker polls again at least every minute; the server remembers stopped ones for a few minutes.
  if (workers.every((worker) => (worker.last_seen_seconds_ago ?? 0) > stalePollSeconds)) {
    return `no worker has polled it in the last ${stalePollSeconds} s (${workers.length} did before); ${startOne}`;
  }
  const seen = (worker: PollingWorker) =>
    worker.last_seen_seconds_ago === null ? '' : `, last polled ${worker.last_seen_seconds_ago} s ago`;
  return `${workers.length} worker${workers.length === 1 ? '' : 's'} polling (${workers.map((worker) => `${worker.identity}${seen(worker)}`).join('; ')})`;
}

function describeContextWindows(windows: ContextWindows | null): string {
  const tokens = (count: number) => `${count.toLocaleString('en-US')} tokens`;
  const named = Object.entries(windows?.models ?? {}).map(([model, count]) => `${model} ${tokens(count)}`);
  const others = windows?.default !== undefined ? tokens(windows.default) : 'learned from the model endpoint';
  return [...named, `${named.length > 0 ? 'other models' : 'every model'} ${others}`].join(', ');
}
