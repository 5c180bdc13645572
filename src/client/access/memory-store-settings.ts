/**
 * Where an owner's memories are kept: `workflow` (the default: one entity workflow per owner, nothing else to run,
 * at most 250 memories per owner) or `postgres` (a PostgreSQL database you run; many more per owner). The worker and
 * every client that reads memories (the SDK, `arbor memory`) must be given the same store.
 */
export type MemoryStoreSettings =
  | { kind: 'workflow' }
  | {
      kind: 'postgres';
      /** A libpq connection string: `postgresql://user:password@host:5432/database` (or `?host=/socket/dir`). */
      databaseUrl: string;
      /** Memories per owner (default 1,000,000). */
      maxMemoriesPerOwner?: number;
      /** Connections this process opens at most (default 10). */
      poolSize?: number;
    };

export const defaultPostgresMemoriesPerOwner = 1_000_000;

/** The settings the environment names: ARBOR_MEMORY_STORE, ARBOR_MEMORY_DATABASE_URL, ARBOR_MEMORY_MAX_PER_OWNER. */
export function memoryStoreFromEnv(env: NodeJS.ProcessEnv = process.env): MemoryStoreSettings {
  const kind = env.ARBOR_MEMORY_STORE?.trim() || 'workflow';
  if (kind === 'workflow') return { kind };
  if (kind !== 'postgres') throw new Error(`ARBOR_MEMORY_STORE is "${kind}": it is workflow (the default) or postgres.`);
  const databaseUrl = env.ARBOR_MEMORY_DATABASE_URL?.trim();
  if (!databaseUrl) throw new Error('ARBOR_MEMORY_STORE=postgres needs ARBOR_MEMORY_DATABASE_URL (postgresql://user@host/database).');
  const cap = env.ARBOR_MEMORY_MAX_PER_OWNER?.trim();
  return checkMemoryStore({ kind, databaseUrl, ...(cap ? { maxMemoriesPerOwner: Number(cap) } : {}) }, 'ARBOR_MEMORY_MAX_PER_OWNER');
}

/** The settings, or an Error saying what is wrong with them. */
export function checkMemoryStore(settings: MemoryStoreSettings, capName = 'maxMemoriesPerOwner'): MemoryStoreSettings {
  if (settings.kind === 'workflow') return settings;
  if (settings.kind !== 'postgres')
    throw new Error(`memoryStore.kind is workflow or postgres, not "${String((settings as { kind: unknown }).kind)}".`);
  if (typeof settings.databaseUrl !== 'string' || settings.databaseUrl.trim() === '')
    throw new Error('memoryStore.databaseUrl is needed for the postgres store (postgresql://user@host/database).');
  const cap = settings.maxMemoriesPerOwner;
  if (cap !== undefined && !(Number.isInteger(cap) && cap >= 1))
    throw new Error(`${capName} is a whole number of memories, 1 or more (got ${String(cap)}).`);
  const pool = settings.poolSize;
  if (pool !== undefined && !(Number.isInteger(pool) && pool >= 1))
    throw new Error(`memoryStore.poolSize is 1 or more (got ${String(pool)}).`);
  return settings;
}
