/**
 * @temporalio/testing's own download (from Temporal's download site; needs general internet access).
 * We point it at `<cache>/sdk-download`, where it names files `<prefix>-sdk-typescript-<sdk version>`,
 * so a download made once is found again by the cache lookup as a plain executable.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { cacheLayout, exeName, type BinarySpec } from './specs.js';

const require = createRequire(import.meta.url);

export function testingSdkVersion(): string {
  return (require('@temporalio/testing/package.json') as { version: string }).version;
}

/** Where @temporalio/testing puts its download of this binary when given our download folder. */
export function sdkDownloadedPath(cacheDir: string, spec: BinarySpec): string {
  return join(cacheLayout.sdkDownloadDir(cacheDir), exeName(`${spec.sdkDownloadPrefix}-sdk-typescript-${testingSdkVersion()}`));
}

/**
 * Makes @temporalio/testing download the binary (by starting and stopping a throwaway server with it),
 * for callers that need a path to run themselves, such as the dev server. Returns the path.
 */
export async function materializeSdkDownload(spec: BinarySpec, cacheDir: string): Promise<string> {
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const executable = { type: 'cached-download' as const, downloadDir: cacheLayout.sdkDownloadDir(cacheDir) };
  const env =
    spec.kind === 'cli'
      ? await TestWorkflowEnvironment.createLocal({ server: { executable, ip: '127.0.0.1' } })
      : await TestWorkflowEnvironment.createTimeSkipping({ server: { executable } });
  await env.teardown();
  return sdkDownloadedPath(cacheDir, spec);
}
