/**
 * Vitest global setup: finds (installing into Arbor's cache if need be) the Temporal CLI and the
 * time-skipping test server, and starts one in-memory dev server shared by the end-to-end tests.
 *
 * Tests read what it provides with `inject('temporalAddress')` etc. Set ARBOR_TEST_TEMPORAL_ADDRESS
 * to use a server you already run instead of starting one.
 */
import type { TestProject } from 'vitest/node';
import { locateBinary, locateBinaryPath, toSdkExecutable } from '../src/temporal/binaries.js';
import { startDevServer, type DevServer } from '../src/temporal/dev-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** host:port of the shared dev server (namespace "default", Arbor's search attributes registered). */
    temporalAddress: string;
    /** Path of the Temporal CLI, for tests that start their own dev servers. */
    temporalCliPath: string;
    /** For `TestWorkflowEnvironment.createTimeSkipping({ server: { executable } })`. */
    testServerExecutable: { type: 'existing-path'; path: string } | { type: 'cached-download'; downloadDir?: string };
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

  project.provide('temporalAddress', address);
  project.provide('temporalCliPath', cliPath);
  project.provide('testServerExecutable', toSdkExecutable(testServer));

  return async () => {
    await server?.stop();
  };
}
