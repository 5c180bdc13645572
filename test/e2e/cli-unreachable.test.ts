import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/temporal/dev-server.js';
import { runCli } from '../support/processes.js';

describe('every command against a server that refuses connections', () => {
  let address: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    address = `127.0.0.1:${await findFreePort('127.0.0.1')}`;
    env = {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_CONFIG_FILE: '/nonexistent/arbor-test.toml',
      ARBOR_CACHE_DIR: process.env.ARBOR_CACHE_DIR ?? '',
    };
  });

  const wording = () => `Cannot reach the Temporal server at ${address} (connection refused). Start one with \`arbor dev\``;

  it.each([
    [['list']],
    [['show', randomUUID()]],
    [['tree', randomUUID()]],
    [['send', randomUUID(), 'hello']],
    [['worker']],
    [['dev']],
    [['run', 'Say hello.']],
    [['chat']],
  ])('%j says the connection was refused, in the one wording that names the address, and exits 2', { timeout: 60_000 }, async (args) => {
    const result = await runCli(args, env);
    expect(result.stderr).toContain(wording());
    expect(result.stderr).not.toContain('deadline');
    expect(result.code).toBe(2);
  });

  it('doctor reports the server unreachable in the same wording and exits 1', { timeout: 60_000 }, async () => {
    const result = await runCli(['doctor', '--no-install'], env);
    expect(result.stdout).toContain(`Temporal server ${address} (namespace default): not reachable`);
    expect(result.stderr).toContain(wording());
    expect(result.code).toBe(1);
  });
});
