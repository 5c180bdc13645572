import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const postgresRoot = '/usr/lib/postgresql';

/** A PostgreSQL server of its own, on a Unix socket in a temporary folder (no TCP port), for one test file. */
export interface TestPostgres {
  /** Runs SQL with psql; resolves with what it printed, or rejects with psql's error. */
  sql(statement: string): Promise<string>;
  /** A libpq connection string for clients such as `pg`: the postgres superuser over the socket, database postgres. */
  connectionString: string;
  stop(): Promise<void>;
}

/** The newest PostgreSQL of the system's packages, installed from Debian's archive when missing (the tests run as root). */
async function postgresBin(): Promise<string> {
  const find = () =>
    existsSync(postgresRoot)
      ? readdirSync(postgresRoot)
          .filter((version) => existsSync(join(postgresRoot, version, 'bin', 'initdb')))
          .sort((a, b) => Number(b) - Number(a))[0]
      : undefined;
  let version = find();
  if (!version) {
    await run('apt-get', ['install', '-y', '-qq', 'postgresql'], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      timeout: 600_000,
    });
    version = find();
  }
  if (!version) throw new Error('PostgreSQL is not installed and apt-get could not install it (package postgresql)');
  return join(postgresRoot, version, 'bin');
}

export async function startPostgres(): Promise<TestPostgres> {
  const bin = await postgresBin();
  const dir = await mkdtemp(join(tmpdir(), 'arbor-pg-'));
  // initdb and postgres refuse to run as root: the system's postgres user runs them.
  const { stdout: uid } = await run('id', ['-u', 'postgres']);
  const { stdout: gid } = await run('id', ['-g', 'postgres']);
  await chown(dir, Number(uid), Number(gid));
  const asPostgres = (command: string, args: string[]) =>
    run('runuser', ['-u', 'postgres', '--', join(bin, command), ...args], { timeout: 120_000 });
  const data = join(dir, 'data');
  await asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  await asPostgres('pg_ctl', ['-D', data, '-w', '-l', join(dir, 'log'), '-o', `-k ${dir} -c listen_addresses= -c fsync=off`, 'start']);
  return {
    connectionString: `postgresql://postgres@${encodeURIComponent(dir)}/postgres`,
    async sql(statement) {
      const { stdout } = await run(join(bin, 'psql'), ['-h', dir, '-U', 'postgres', '-v', 'ON_ERROR_STOP=1', '-qtA', '-c', statement]);
      return stdout.trim();
    },
    async stop() {
      await asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
