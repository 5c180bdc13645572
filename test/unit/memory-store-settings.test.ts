import { describe, expect, it } from 'vitest';
import { ArborClient } from '../../src/client/arbor-client.js';
import { loadConnectionSettings } from '../../src/client/connection.js';
import { checkMemoryStore, memoryStoreFromEnv } from '../../src/client/access/memory-store-settings.js';
import { createArborWorker } from '../../src/worker.js';

describe('choosing the memory store', () => {
  it('keeps memories in workflows unless the environment names postgres with a database', () => {
    expect(memoryStoreFromEnv({})).toEqual({ kind: 'workflow' });
    expect(memoryStoreFromEnv({ ARBOR_MEMORY_STORE: 'workflow', ARBOR_MEMORY_DATABASE_URL: 'postgresql://x/y' })).toEqual({
      kind: 'workflow',
    });
    expect(
      memoryStoreFromEnv({
        ARBOR_MEMORY_STORE: 'postgres',
        ARBOR_MEMORY_DATABASE_URL: 'postgresql://db/arbor',
        ARBOR_MEMORY_MAX_PER_OWNER: '5000',
      }),
    ).toEqual({ kind: 'postgres', databaseUrl: 'postgresql://db/arbor', maxMemoriesPerOwner: 5000 });
  });

  it.each([
    [{ ARBOR_MEMORY_STORE: 'sqlite' }, 'ARBOR_MEMORY_STORE is "sqlite": it is workflow (the default) or postgres.'],
    [{ ARBOR_MEMORY_STORE: 'postgres' }, 'ARBOR_MEMORY_STORE=postgres needs ARBOR_MEMORY_DATABASE_URL'],
    [
      { ARBOR_MEMORY_STORE: 'postgres', ARBOR_MEMORY_DATABASE_URL: 'postgresql://db/arbor', ARBOR_MEMORY_MAX_PER_OWNER: 'lots' },
      'ARBOR_MEMORY_MAX_PER_OWNER is a whole number of memories, 1 or more (got NaN).',
    ],
  ])('refuses %o, saying what to set', (env, message) => {
    expect(() => memoryStoreFromEnv(env)).toThrow(message);
  });

  it('refuses a postgres store option without a database or with a cap below one', () => {
    expect(() => checkMemoryStore({ kind: 'postgres', databaseUrl: ' ' })).toThrow('memoryStore.databaseUrl is needed');
    expect(() => checkMemoryStore({ kind: 'postgres', databaseUrl: 'postgresql://db/a', maxMemoriesPerOwner: 0 })).toThrow(
      'maxMemoriesPerOwner is a whole number of memories, 1 or more (got 0).',
    );
  });

  it('stops createArborWorker before it connects when the memory store setting is bad', async () => {
    // Nothing listens on port 1: a worker that tried to connect would fail with a connection error instead.
    const connection = loadConnectionSettings({ TEMPORAL_CONFIG_FILE: '/nonexistent.toml' }, { address: '127.0.0.1:1' });
    await expect(createArborWorker({ connection, memoryStore: { kind: 'postgres', databaseUrl: '' } })).rejects.toThrow(
      'memoryStore.databaseUrl is needed',
    );
  });

  it('gives the SDK’s memories() a clear error when the environment names a store it cannot use', () => {
    const client = new ArborClient({} as never, 'queue', {}, () => memoryStoreFromEnv({ ARBOR_MEMORY_STORE: 'postgres' }));
    expect(() => client.memories('alice')).toThrow('ARBOR_MEMORY_STORE=postgres needs ARBOR_MEMORY_DATABASE_URL');
  });
});
