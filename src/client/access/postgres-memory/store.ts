import { createRequire } from 'node:module';
import type * as pg from 'pg';
import type { Pool, PoolClient } from 'pg';
import { parseMemoryRead, parseMemoryWrite } from '../../../shared/memory-requests.js';
import type { ToolReply } from '../../../shared/tool-reply.js';
import {
  fullMemoryStoreError,
  unknownMemoryError,
  type MemoryRead,
  type MemoryRecord,
  type MemoryWriteRequest,
} from '../../../shared/tools/memory.js';
import { notAppliedError } from '../../../shared/write-batches.js';
import { defaultPostgresMemoriesPerOwner } from '../memory-store-settings.js';
import { migrateMemorySchema } from './schema.js';
import { anyWordTsquerySql, memoryVectorSql, queryWords } from './text-search.js';

export interface PostgresMemoryStoreOptions {
  databaseUrl: string;
  maxMemoriesPerOwner?: number | undefined;
  poolSize?: number | undefined;
  /** The clock memories are stamped with (default: this process's). */
  now?: () => Date;
}

interface MemoryRow {
  seq: string;
  content: string;
  tags: string[];
  created_at: Date;
  updated_at: Date;
  session_id: string;
  updated_by: string;
  score?: number;
}

/** How long the reply to each write is kept, so a retried write is answered from it and applied once. */
const keepRepliesFor = "interval '7 days'";
const prunePerWrites = 500;
const memoryColumns = 'seq, content, tags, created_at, updated_at, session_id, updated_by';

/**
 * An owner's memories in PostgreSQL, with the workflow store's operations, limits and replies. Each write is one
 * transaction that first locks the owner's row, so writes of one owner apply one at a time (the cap and the
 * numbering hold under any concurrency) while other owners' writes go on in parallel. Every statement names the
 * owner. Each write's reply is recorded under its key in the same transaction: a write sent again is answered from
 * the record, and a write given up on (abandon) is recorded as not applied, so a late copy is refused.
 */
/** `pg`, loaded once a store is opened: every SDK client and CLI command reaches this module, few use PostgreSQL. */
function loadPg(): typeof pg {
  return createRequire(import.meta.url)('pg') as typeof pg;
}

export class PostgresMemoryStore {
  readonly maxMemoriesPerOwner: number;
  private readonly pool: Pool;
  private readonly now: () => Date;
  private migrated: Promise<void> | undefined;
  private writes = 0;

  constructor(options: PostgresMemoryStoreOptions) {
    this.maxMemoriesPerOwner = options.maxMemoriesPerOwner ?? defaultPostgresMemoriesPerOwner;
    this.now = options.now ?? (() => new Date());
    this.pool = new (loadPg().Pool)({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      allowExitOnIdle: true,
      application_name: 'arbor-memory',
    });
    // An idle connection the server closed is dropped by the pool; without a listener it would crash the process.
    this.pool.on('error', () => undefined);
  }

  /** Creates the schema if needed; called before the first statement, and again after a failure. */
  ready(): Promise<void> {
    this.migrated ??= migrateMemorySchema(this.pool).catch((error: unknown) => {
      this.migrated = undefined;
      throw error;
    });
    return this.migrated;
  }

  async write(owner: string, request: MemoryWriteRequest, key: string): Promise<ToolReply<unknown>> {
    const parsed = parseMemoryWrite(request);
    const reply = await this.transaction(async (db) => {
      const {
        rows: [counts],
      } = await db.query<{ next_seq: string; memory_count: number }>(
        `INSERT INTO arbor_memory_owners (owner) VALUES ($1)
         ON CONFLICT (owner) DO UPDATE SET owner = EXCLUDED.owner RETURNING next_seq, memory_count`,
        [owner],
      );
      const earlier = await recordedReply(db, owner, key);
      if (earlier) return earlier;
      const applied = parsed.ok ? await this.apply(db, owner, parsed.result, counts!) : parsed;
      const kept = await db.query(
        'INSERT INTO arbor_memory_writes (owner, write_key, reply) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1',
        [owner, key, applied],
      );
      // Given up on (abandon) while this transaction ran: nothing of it may be kept.
      if (kept.rowCount === 0) throw new Superseded();
      return applied;
    }).catch(async (error: unknown) => {
      if (!(error instanceof Superseded)) throw error;
      return (await this.recorded(owner, key))!;
    });
    if (++this.writes % prunePerWrites === 0) void this.pruneReplies();
    return reply;
  }

  /** The reply to a write given up on, if it was applied; else a refusal recorded so that it never will be. */
  async abandon(owner: string, key: string, reason: string): Promise<ToolReply<unknown>> {
    await this.ready();
    const refusal: ToolReply<unknown> = { ok: false, error: notAppliedError(reason) };
    const kept = await this.pool.query(
      'INSERT INTO arbor_memory_writes (owner, write_key, reply) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1',
      [owner, key, refusal],
    );
    return kept.rowCount === 1 ? refusal : (await this.recorded(owner, key))!;
  }

  async read(owner: string, request: MemoryRead): Promise<unknown> {
    await this.ready();
    const read = parseMemoryRead(request);
    if (read.op === 'list') {
      const { tag, limit } = read.args;
      const tagFilter = tag === undefined ? '' : 'AND tags @> ARRAY[$3]::text[]';
      const [listed, total] = await Promise.all([
        this.pool.query<MemoryRow>(
          `SELECT ${memoryColumns} FROM arbor_memories WHERE owner = $1 ${tagFilter}
           ORDER BY created_at DESC, seq DESC LIMIT $2`,
          tag === undefined ? [owner, limit] : [owner, limit, tag],
        ),
        tag === undefined
          ? this.pool.query<{ total: number }>('SELECT memory_count AS total FROM arbor_memory_owners WHERE owner = $1', [owner])
          : this.pool.query<{ total: string }>(
              'SELECT count(*) AS total FROM arbor_memories WHERE owner = $1 AND tags @> ARRAY[$2]::text[]',
              [owner, tag],
            ),
      ]);
      return { total: Number(total.rows[0]?.total ?? 0), memories: listed.rows.map(toRecord) };
    }
    const words = queryWords(read.args.query);
    const found = await this.pool.query<MemoryRow>(
      `SELECT ${memoryColumns}, ts_rank(search, query, 1) AS score
       FROM arbor_memories, (SELECT ${anyWordTsquerySql(words.length, 3)} AS query) AS asked
       WHERE owner = $1 AND search @@ query
       ORDER BY score DESC, created_at DESC, seq DESC LIMIT $2`,
      [owner, read.args.limit, ...words],
    );
    return { results: found.rows.map((row) => ({ ...toRecord(row), score: Math.round(row.score! * 10_000) / 10_000 })) };
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private async apply(
    db: PoolClient,
    owner: string,
    request: MemoryWriteRequest,
    counts: { next_seq: string; memory_count: number },
  ): Promise<ToolReply<unknown>> {
    const now = this.now();
    switch (request.op) {
      case 'save': {
        if (counts.memory_count >= this.maxMemoriesPerOwner) return { ok: false, error: fullMemoryStoreError(this.maxMemoriesPerOwner) };
        const tags = unique(request.args.tags ?? []);
        await db.query(
          `INSERT INTO arbor_memories (owner, seq, content, tags, created_at, updated_at, session_id, updated_by, search)
           VALUES ($1, $2, $3, $4::text[], $5, $5, $6, $6, ${memoryVectorSql('$3', '$4::text[]')})`,
          [owner, counts.next_seq, request.args.content, tags, now, request.session_id],
        );
        await db.query('UPDATE arbor_memory_owners SET next_seq = next_seq + 1, memory_count = memory_count + 1 WHERE owner = $1', [owner]);
        return { ok: true, result: { memory_id: `mem-${counts.next_seq}`, saved: true } };
      }
      case 'update': {
        const seq = sequenceOf(request.args.memory_id);
        const {
          rows: [memory],
        } =
          seq === undefined
            ? { rows: [] }
            : await db.query<MemoryRow>(`SELECT ${memoryColumns} FROM arbor_memories WHERE owner = $1 AND seq = $2`, [owner, seq]);
        if (!memory) return { ok: false, error: unknownMemoryError(request.args.memory_id) };
        const updated: string[] = [];
        let { content, tags } = memory;
        if (request.args.content !== undefined && request.args.content !== content) {
          content = request.args.content;
          updated.push('content');
        }
        if (request.args.tags !== undefined && JSON.stringify(unique(request.args.tags)) !== JSON.stringify(tags)) {
          tags = unique(request.args.tags);
          updated.push('tags');
        }
        if (updated.length > 0) {
          await db.query(
            `UPDATE arbor_memories SET content = $3, tags = $4::text[], updated_at = $5, updated_by = $6,
               search = ${memoryVectorSql('$3', '$4::text[]')}
             WHERE owner = $1 AND seq = $2`,
            [owner, seq, content, tags, now, request.session_id],
          );
        }
        return { ok: true, result: { memory_id: request.args.memory_id, updated_fields: updated } };
      }
      case 'delete': {
        const seq = sequenceOf(request.args.memory_id);
        const deleted =
          seq === undefined ? { rowCount: 0 } : await db.query('DELETE FROM arbor_memories WHERE owner = $1 AND seq = $2', [owner, seq]);
        if (deleted.rowCount === 0) return { ok: false, error: unknownMemoryError(request.args.memory_id) };
        await db.query('UPDATE arbor_memory_owners SET memory_count = memory_count - 1 WHERE owner = $1', [owner]);
        return { ok: true, result: { memory_id: request.args.memory_id, deleted: true } };
      }
    }
  }

  private async transaction<T>(work: (db: PoolClient) => Promise<T>): Promise<T> {
    await this.ready();
    const db = await this.pool.connect();
    try {
      await db.query('BEGIN');
      const result = await work(db);
      await db.query('COMMIT');
      return result;
    } catch (error) {
      await db.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      db.release();
    }
  }

  private async recorded(owner: string, key: string): Promise<ToolReply<unknown> | undefined> {
    const db = await this.pool.connect();
    try {
      return await recordedReply(db, owner, key);
    } finally {
      db.release();
    }
  }

  private async pruneReplies(): Promise<void> {
    await this.pool.query(`DELETE FROM arbor_memory_writes WHERE recorded_at < now() - ${keepRepliesFor}`).catch(() => undefined);
  }
}

class Superseded extends Error {}

async function recordedReply(db: PoolClient, owner: string, key: string): Promise<ToolReply<unknown> | undefined> {
  const { rows } = await db.query<{ reply: ToolReply<unknown> }>(
    'SELECT reply FROM arbor_memory_writes WHERE owner = $1 AND write_key = $2',
    [owner, key],
  );
  return rows[0]?.reply;
}

/** The number in a memory id `mem-N`; an id of any other shape names no memory. */
function sequenceOf(memoryId: string): string | undefined {
  return /^mem-([1-9]\d{0,17})$/.exec(memoryId)?.[1];
}

function toRecord(row: MemoryRow): MemoryRecord {
  return {
    memory_id: `mem-${row.seq}`,
    content: row.content,
    tags: row.tags,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    session_id: row.session_id,
    updated_by: row.updated_by,
  };
}

function unique(tags: string[]): string[] {
  return [...new Set(tags)];
}
