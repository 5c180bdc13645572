/**
 * Vitest global setup: finds (installing into Arbor's cache if need be) the Temporal CLI and the
 * time-skipping test server, and starts one in-memory dev server shared by the end-to-end tests.
 *
 * Tests read what it provides with `inject('temporalAddress')` etc. Set ARBOR_TEST_TEMPORAL_ADDRESS
 * to use a server you already run instead of starting one.
 */
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { TestProject } from 'vitest/node';
import { workflowBundlerOptions } from '../src/worker/workflow-code.js';
import { locateBinary, locateBinaryPath, toSdkExecutable } from '../src/temporal/binaries.js';
import { startDevServer, type DevServer } from '../src/temporal/dev-server.js';
import { isNewerThanSource } from './support/cli-entry.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** host:port of the shared dev server (namespace "default", Arbor's search attributes registered). */
    temporalAddress: string;
    /** Path of the Temporal CLI, for tests that start their own dev servers. */
    temporalCliPath: string;
    /** For `TestWorkflowEnvironment.createTimeSkipping({ server: { executable } })`. */
    testServerExecutable: { type: 'existing-path'; path: string } | { type: 'cached-download'; downloadDir?: string };
    /** Today's workflow code bundled once, for the worker processes tests start. */
    workflowBundlePath: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const log = (line: string) => console.log(`[arbor test setup] ${line}`);

  const cliPath = await locateBinaryPath('cli', { log });
  const testServer = await locateBinary('test-server', { log });

  let server: DevServer | undefined;
  let address = process.env.ARBOR_TEST_TEMPORAL_ADDRESS;
  if (address) {
    log(`using the Temporal server at ${address} (ARBOR_TEST_TEMPORAL_ADDRESS)`);
  } else {
    server = await startDevServer({ cliPath, port: 0, ui: false, log });
    address = server.address;
  }

  const bundleFolder = await mkdtemp(join(tmpdir(), 'arbor-test-bundle-'));
  const bundlePath = join(bundleFolder, 'workflow-bundle.js');
  if (isNewerThanSource(builtBundle)) {
    // The build's bundle of today's code (as after npm ci, whose prepare builds it): a copy, so a build during the run cannot change it.
    await copyFile(builtBundle, bundlePath);
    log(`workflow bundle of the fresh build copied to ${bundlePath}`);
  } else {
    const { code } = await bundleWorkflowCode({ ...workflowBundlerOptions(), logger: quietBundler });
    await writeFile(bundlePath, code);
    log(`workflow code bundled into ${bundlePath}`);
  }

  project.provide('temporalAddress', address);
  project.provide('workflowBundlePath', bundlePath);
  project.provide('temporalCliPath', cliPath);
  project.provide('testServerExecutable', toSdkExecutable(testServer));

  return async () => {
    await server?.stop();
    await rm(bundleFolder, { recursive: true, force: true });
  };
}

const builtBundle = fileURLToPath(new URL('../dist/workflow-bundle.js', import.meta.url));
const quietBundler = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };
