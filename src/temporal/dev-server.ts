/**
 * Runs `temporal server start-dev` as a child process, with Arbor's search attributes registered,
 * and waits until its frontend answers for the namespace.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { createServer, Socket } from 'node:net';
import { dirname, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { arborSearchAttributes } from '../shared/search-attributes.js';
import { locateBinaryPath, type LocateOptions } from './binaries.js';

export type DevServerLogLevel = 'debug' | 'info' | 'warn' | 'error' | 'never';

export interface DevServerOptions {
  /** Temporal CLI to run. Default: located (and installed if need be) with locateBinary('cli', locate). */
  cliPath?: string;
  /** Options for locating the CLI when cliPath is not given. */
  locate?: LocateOptions;
  /** IP the frontend (and UI) binds to. Default 127.0.0.1. */
  ip?: string;
  /** Frontend gRPC port. Default 7233; 0 picks a free port. */
  port?: number;
  /** Whether to serve the Web UI. Default true (false passes --headless). */
  ui?: boolean;
  /** Web UI port. Default: port + 1000 (8233 for 7233), or a free port when port is 0. */
  uiPort?: number;
  /** SQLite file to keep state in (its folder is created). Default: in memory, lost on stop. */
  dbFilename?: string;
  /** Namespace to create (if not "default", which always exists) and wait for. Default "default". */
  namespace?: string;
  /** Server log level. Default "warn". */
  logLevel?: DevServerLogLevel;
  /** Search attributes to register. Default: Arbor's (src/shared/search-attributes.ts). */
  searchAttributes?: readonly { name: string; type: string }[];
  /** More arguments for `temporal server start-dev`. */
  extraArgs?: string[];
  /** How long to wait for the server to be usable. Default 30 s. */
  readyTimeoutMs?: number;
  /** How long stop() waits after SIGTERM before SIGKILL. Default 5 s. */
  stopTimeoutMs?: number;
  /** Environment for the server process. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Progress lines. */
  log?: (line: string) => void;
  /** Every line the server writes (stdout and stderr). Default: kept only as a tail for error messages. */
  onOutput?: (line: string) => void;
}

export interface DevServer {
  /** host:port of the frontend gRPC service. */
  address: string;
  /** Web UI URL, unless headless. */
  uiUrl?: string;
  namespace: string;
  /** The `temporal` process. */
  process: ChildProcess;
  /** SIGTERM, wait for exit (SIGKILL after stopTimeoutMs). Safe to call more than once. */
  stop(): Promise<void>;
}

export class DevServerStartError extends Error {
  constructor(
    message: string,
    readonly output: string,
  ) {
    super(output.trim() ? `${message}\n--- temporal server output (tail) ---\n${output.trimEnd()}` : message);
    this.name = 'DevServerStartError';
  }
}

/** Whether something accepts TCP connections at `address` ("host:port") within `timeoutMs`. */
export function isServerReachable(address: string, timeoutMs = 1000): Promise<boolean> {
  const { host, port } = splitAddress(address);
  return new Promise((resolveReachable) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolveReachable(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.connect(port, host);
  });
}

function splitAddress(address: string): { host: string; port: number } {
  const match = /^\[?([^\]]*?)\]?:(\d+)$/.exec(address.trim());
  if (!match) throw new Error(`Not a host:port address: ${address}`);
  return { host: match[1] || '127.0.0.1', port: Number(match[2]) };
}

function formatAddress(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** A port that was free a moment ago on `host`. */
export function findFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolvePort(port) : reject(new Error('could not get a free port'))));
    });
  });
}

/** Keeps the last `max` characters of a stream of text. */
class OutputTail {
  private text = '';
  constructor(private readonly max = 8000) {}
  push(chunk: string): void {
    this.text = (this.text + chunk).slice(-this.max);
  }
  toString(): string {
    return this.text;
  }
}

/** The dev server settings Arbor starts its server with (the benchmarks use them too). */
export const devServerTuning = [
  // No phoning home for version checks (as @temporalio/testing does too).
  '--dynamic-config-value',
  'frontend.enableServerVersionCheck=false',
  // A parent starting hundreds of sub-agents at once writes their start events in one batch; past the default 512 KiB
  // events cache the server reads that batch back for every child it starts (bench/RESULTS.md, B4).
  '--dynamic-config-value',
  'history.eventsCacheMaxSizeBytes=67108864',
] as const;

export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const log = options.log ?? (() => undefined);
  const ip = options.ip ?? '127.0.0.1';
  const namespace = options.namespace ?? 'default';
  const ui = options.ui ?? true;
  const requestedPort = options.port ?? 7233;
  const port = requestedPort === 0 ? await findFreePort(ip) : requestedPort;
  const address = formatAddress(ip, port);
  if (await isServerReachable(address, 500)) {
    throw new DevServerStartError(`Cannot start a Temporal dev server on ${address}: something is already listening there`, '');
  }
  let uiPort: number | undefined;
  if (ui) uiPort = options.uiPort || (requestedPort === 0 || port + 1000 > 65535 ? await findFreePort(ip) : port + 1000);

  const cliPath = options.cliPath ?? (await locateBinaryPath('cli', { log, ...options.locate }));
  const args = [
    'server',
    'start-dev',
    '--ip',
    ip,
    '--port',
    String(port),
    '--namespace',
    namespace,
    '--log-level',
    options.logLevel ?? 'warn',
    ...devServerTuning,
  ];
  if (ui && uiPort) args.push('--ui-port', String(uiPort));
  else args.push('--headless');
  let dbFilename: string | undefined;
  if (options.dbFilename) {
    dbFilename = resolve(options.dbFilename);
    await mkdir(dirname(dbFilename), { recursive: true });
    args.push('--db-filename', dbFilename);
  }
  for (const attribute of options.searchAttributes ?? arborSearchAttributes) {
    args.push('--search-attribute', `${attribute.name}=${attribute.type}`);
  }
  args.push(...(options.extraArgs ?? []));

  log(`starting ${cliPath} ${args.join(' ')}`);
  // Its own process group: Ctrl-C in a terminal reaches only us, and we stop the server after the worker has drained.
  const child = spawn(cliPath, args, {
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    windowsHide: true,
    detached: true,
  });
  const tail = new OutputTail();
  let partial = '';
  const onData = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    tail.push(text);
    if (options.onOutput) {
      const lines = (partial + text).split(/\r?\n/);
      partial = lines.pop() ?? '';
      for (const line of lines) options.onOutput(line);
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);

  // Die with us: 'exit' handlers must be synchronous, so no graceful shutdown here (SQLite survives SIGKILL).
  const killWithUs = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.on('exit', killWithUs);

  let exited = false;
  const exitPromise = new Promise<void>((resolveExit) => {
    child.once('exit', () => {
      exited = true;
      process.removeListener('exit', killWithUs);
      resolveExit();
    });
  });
  let spawnError: Error | undefined;
  child.once('error', (err) => {
    spawnError = err;
    if (child.pid === undefined) process.removeListener('exit', killWithUs); // never started
  });

  let stopping: Promise<void> | undefined;
  const stopTimeoutMs = options.stopTimeoutMs ?? 5000;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (exited || child.pid === undefined) return;
      child.kill('SIGTERM');
      const killed = await Promise.race([exitPromise.then(() => true), sleep(stopTimeoutMs).then(() => false)]);
      if (!killed) {
        log(`temporal dev server (pid ${child.pid}) ignored SIGTERM for ${stopTimeoutMs} ms; sending SIGKILL`);
        child.kill('SIGKILL');
        await exitPromise;
      }
    })();
    return stopping;
  };

  try {
    await waitUntilReady({
      address,
      namespace,
      timeoutMs: options.readyTimeoutMs ?? 30_000,
      failed: () => {
        if (spawnError) return `could not run ${cliPath}: ${spawnError.message}`;
        if (exited)
          return `temporal server start-dev exited early (code ${child.exitCode ?? 'none'}, signal ${child.signalCode ?? 'none'})`;
        return undefined;
      },
    });
  } catch (err) {
    await stop();
    throw new DevServerStartError((err as Error).message, tail.toString());
  }

  const uiUrl = ui && uiPort ? `http://${formatAddress(ip, uiPort)}` : undefined;
  log(`Temporal dev server ready at ${address}${uiUrl ? `, UI at ${uiUrl}` : ''} (pid ${child.pid})`);
  return { address, uiUrl, namespace, process: child, stop };
}

async function waitUntilReady(opts: {
  address: string;
  namespace: string;
  timeoutMs: number;
  failed: () => string | undefined;
}): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  let lastError = 'frontend port never accepted connections';
  let connection: Connection | undefined;
  try {
    while (Date.now() < deadline) {
      const failure = opts.failed();
      if (failure) throw new Error(failure);
      if (!connection) {
        if (await isServerReachable(opts.address, 500)) {
          try {
            connection = await Connection.connect({ address: opts.address, connectTimeout: 2000 });
          } catch (err) {
            lastError = `connect: ${(err as Error).message}`;
          }
        }
      }
      if (connection) {
        try {
          await connection.withDeadline(Date.now() + 2000, () =>
            connection!.workflowService.describeNamespace({ namespace: opts.namespace }),
          );
          return;
        } catch (err) {
          lastError = `describeNamespace(${opts.namespace}): ${(err as Error).message}`;
        }
      }
      await sleep(200);
    }
    const failure = opts.failed();
    throw new Error(failure ?? `Temporal dev server at ${opts.address} not ready after ${opts.timeoutMs} ms: ${lastError}`);
  } finally {
    await connection?.close().catch(() => undefined);
  }
}
