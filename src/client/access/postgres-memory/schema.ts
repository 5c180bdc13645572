import type { Pool } from 'pg';

/**
 * The tables of the PostgreSQL memory store, created on first use. Every statement is idempotent, and they run in
 * one transaction under an advisory lock, so workers starting together create them once. Version 1.
 */
export const memorySchemaStatements = [
  `CREATE TABLE IF NOT EXISTS arbor_memory_owners (
     owner text PRIMARY KEY,
     next_seq bigint NOT NULL DEFAULT 1,
     memory_count integer NOT NULL DEFAULT 0
   )`,
  `CREATE TABLE IF NOT EXISTS arbor_memories (
     owner text NOT NULL,
     seq bigint NOT NULL,
     content text NOT NULL,
     tags text[] NOT NULL,
     created_at timestamptz NOT NULL,
     updated_at timestamptz NOT NULL,
     session_id text NOT NULL,
     updated_by text NOT NULL,
     search tsvector NOT NULL,
     PRIMARY KEY (owner, seq)
   )`,
  'CREATE INDEX IF NOT EXISTS arbor_memories_search ON arbor_memories USING gin (search)',
  'CREATE INDEX IF NOT EXISTS arbor_memories_tags ON arbor_memories USING gin (tags)',
  'CREATE INDEX IF NOT EXISTS arbor_memories_newest ON arbor_memories (owner, created_at DESC, seq DESC)',
  `CREATE TABLE IF NOT EXISTS arbor_memory_writes (
     owner text NOT NULL,
     write_key text NOT NULL,
     reply json NOT NULL,
     recorded_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (owner, write_key)
   )`,
  'CREATE INDEX IF NOT EXISTS arbor_memory_writes_recorded ON arbor_memory_writes (recorded_at)',
];

/** Any 64-bit number no other application's advisory lock is likely to use. */
const migrationLock = 7_461_030_028;

export async function migrateMemorySchema(pool: Pool): Promise<void> {
  const connection = await pool.connect();
  try {
    await connection.query('BEGIN');
    await connection.query('SELECT pg_advisory_xact_lock($1)', [migrationLock]);
    for (const statement of memorySchemaStatements) await connection.query(statement);
    await connection.query('COMMIT');
  } catch (error) {
    await connection.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    connection.release();
  }
}
