/**
 * Global setup of `npm run test:cluster`: brings up a multi-service Temporal cluster on PostgreSQL with the published
 * script (deploy/cluster/arbor-cluster.sh up: Go build of the server and schema tool, PostgreSQL from the system's
 * packages, schemas, four services on loopback, namespace and search attributes), then the usual global setup pointed
 * at it (ARBOR_TEST_TEMPORAL_ADDRESS). Tests restart its services through the same script (clusterScript).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { locateBinaryPath } from '../../src/temporal/binaries.js';
import baseSetup from '../global-setup.js';
import { runClusterScript } from './cluster-script.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The environment that makes deploy/cluster/arbor-cluster.sh act on this run's cluster. */
    clusterEnv: Record<string, string>;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const log = (line: string) => console.log(`[arbor cluster setup] ${line}`);
  const dir = await mkdtemp(join(tmpdir(), 'arbor-cluster-'));
  // Away from the dev servers' ports and from other runs: the cluster takes base .. base+20.
  const base = Number(process.env.ARBOR_CLUSTER_PORT_BASE) || 21_000 + 50 * Math.floor(Math.random() * 160);
  const clusterEnv = {
    ARBOR_CLUSTER_DIR: dir,
    ARBOR_CLUSTER_PORT_BASE: String(base),
    TEMPORAL_CLI: await locateBinaryPath('cli', { log }),
  };
  const started = Date.now();
  try {
    await runClusterScript(['up'], clusterEnv, log);
  } catch (error) {
    await runClusterScript(['down'], clusterEnv, log).catch(() => undefined);
    throw error;
  }
  log(`cluster up in ${((Date.now() - started) / 1000).toFixed(1)} s at 127.0.0.1:${base} (state in ${dir})`);
  process.env.ARBOR_TEST_TEMPORAL_ADDRESS = `127.0.0.1:${base}`;
  const baseTeardown = await baseSetup(project);
  project.provide('clusterEnv', clusterEnv);
  return async () => {
    await baseTeardown();
    await runClusterScript(['down'], clusterEnv, log).catch((error: unknown) => log(`down failed: ${String(error)}`));
    if (!process.env.ARBOR_CLUSTER_KEEP) await rm(dir, { recursive: true, force: true });
  };
}
