import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConnectionSettings } from '../../src/client/connection.js';

/**
 * Every env points TEMPORAL_CONFIG_FILE somewhere, so the user's real ~/.config/temporalio/temporal.toml is never
 * read. @temporalio/envconfig treats a missing file (ENOENT) as an empty configuration.
 */
let dir: string;
let missingFile: string;
let configFile: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'arbor-connection-'));
  missingFile = join(dir, 'does-not-exist.toml');
  configFile = join(dir, 'temporal.toml');
  await writeFile(
    configFile,
    [
      '[profile.default]',
      'address = "default-profile.example:7233"',
      'namespace = "from-default-profile"',
      '',
      '[profile.staging]',
      'address = "staging.example:7233"',
      'namespace = "staging-ns"',
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const env = (values: Record<string, string> = {}) => ({ TEMPORAL_CONFIG_FILE: missingFile, ...values });

describe('loadConnectionSettings', () => {
  it('defaults to localhost:7233, namespace default and task queue arbor, with no address given', () => {
    const settings = loadConnectionSettings(env());
    expect(settings.address).toBe('localhost:7233');
    expect(settings.namespace).toBe('default');
    expect(settings.taskQueue).toBe('arbor');
    expect(settings.addressGiven).toBe(false);
    expect(settings.connectionOptions.address).toBe('localhost:7233');
    expect(settings.connectionOptions.tls).toBeUndefined();
  });

  it('respects TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and ARBOR_TASK_QUEUE', () => {
    const settings = loadConnectionSettings(
      env({ TEMPORAL_ADDRESS: 'temporal.example:7233', TEMPORAL_NAMESPACE: 'prod', ARBOR_TASK_QUEUE: 'agents' }),
    );
    expect(settings.address).toBe('temporal.example:7233');
    expect(settings.connectionOptions.address).toBe('temporal.example:7233');
    expect(settings.namespace).toBe('prod');
    expect(settings.taskQueue).toBe('agents');
    expect(settings.addressGiven).toBe(true);
  });

  it('trims ARBOR_TASK_QUEUE and ignores it when blank', () => {
    expect(loadConnectionSettings(env({ ARBOR_TASK_QUEUE: '  q1 ' })).taskQueue).toBe('q1');
    expect(loadConnectionSettings(env({ ARBOR_TASK_QUEUE: '   ' })).taskQueue).toBe('arbor');
  });

  it('lets explicit overrides win over the environment and counts an overridden address as given', () => {
    const settings = loadConnectionSettings(
      env({ TEMPORAL_ADDRESS: 'env:7233', TEMPORAL_NAMESPACE: 'env-ns', ARBOR_TASK_QUEUE: 'env-q' }),
      { address: 'flag:7233', namespace: 'flag-ns', taskQueue: 'flag-q' },
    );
    expect(settings).toMatchObject({ address: 'flag:7233', namespace: 'flag-ns', taskQueue: 'flag-q', addressGiven: true });
    expect(settings.connectionOptions.address).toBe('flag:7233');

    expect(loadConnectionSettings(env(), { address: 'flag:7233' }).addressGiven).toBe(true);
  });

  it('does not count a namespace or task queue alone as a given address', () => {
    const settings = loadConnectionSettings(env({ TEMPORAL_NAMESPACE: 'ns' }), { taskQueue: 'q' });
    expect(settings.addressGiven).toBe(false);
    expect(settings.address).toBe('localhost:7233');
  });

  it('turns TLS on when TEMPORAL_API_KEY is set and passes the key along', () => {
    const settings = loadConnectionSettings(env({ TEMPORAL_ADDRESS: 'cloud:7233', TEMPORAL_API_KEY: 'secret' }));
    expect(settings.connectionOptions.apiKey).toBe('secret');
    expect(settings.connectionOptions.tls).toBe(true);
  });

  it('reads the default profile of the config file and counts its address as given', () => {
    const settings = loadConnectionSettings({ TEMPORAL_CONFIG_FILE: configFile });
    expect(settings.address).toBe('default-profile.example:7233');
    expect(settings.namespace).toBe('from-default-profile');
    expect(settings.addressGiven).toBe(true);
  });

  it('reads the profile named by TEMPORAL_PROFILE, and TEMPORAL_ADDRESS still wins over it', () => {
    const staging = loadConnectionSettings({ TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_PROFILE: 'staging' });
    expect(staging.address).toBe('staging.example:7233');
    expect(staging.namespace).toBe('staging-ns');

    const overridden = loadConnectionSettings({
      TEMPORAL_CONFIG_FILE: configFile,
      TEMPORAL_PROFILE: 'staging',
      TEMPORAL_ADDRESS: 'env:7233',
    });
    expect(overridden.address).toBe('env:7233');
    expect(overridden.namespace).toBe('staging-ns');
  });

  it('fails on a profile that the config file does not have', () => {
    expect(() => loadConnectionSettings({ TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_PROFILE: 'nope' })).toThrow(
      "Profile 'nope' not found",
    );
  });
});
