/** Builds the Temporal CLI from source with `go install` (modules come from the Go module proxy). */
import { join } from 'node:path';
import { installFileAtomically, withFileLock } from './atomic-install.js';
import { findOnPath, isExecutableFile } from './files.js';
import { describeFailure, runCommand } from './run.js';
import { cacheLayout, exeName, GO_CLI_MODULE, GO_CLI_VERSION } from './specs.js';
import type { InstallContext, InstallOutcome } from './install-context.js';

/** Compiling the CLI (it embeds the whole server and UI) takes minutes on a small machine. */
const GO_TIMEOUT_MS = 40 * 60_000;

export async function installCliWithGo(ctx: InstallContext): Promise<InstallOutcome> {
  const pkg = `${GO_CLI_MODULE}@${GO_CLI_VERSION}`;
  const way = `go install ${pkg}`;
  const goPath = await findOnPath('go', ctx.env);
  if (!goPath) return { way, reason: 'go not found on PATH' };
  const target = cacheLayout.goBinary(ctx.cacheDir);
  const lockPath = join(cacheLayout.locksDir(ctx.cacheDir), 'go-temporal.lock');
  return withFileLock(
    lockPath,
    async (): Promise<InstallOutcome> => {
      if (await isExecutableFile(target)) return { way, path: target };
      ctx.log(`building ${pkg} with ${goPath} into ${target} (this can take several minutes)`);
      try {
        await installFileAtomically(target, async (staging) => {
          const env = { ...ctx.env, GOBIN: staging, CGO_ENABLED: '0', GOFLAGS: `${ctx.env.GOFLAGS ?? ''} -buildvcs=false`.trim() };
          // As the CLI's release build does: strip symbols, stamp the version.
          const ldflags = `-ldflags=-s -w -X github.com/temporalio/cli/temporalcli.Version=${GO_CLI_VERSION.replace(/^v/, '')}`;
          const result = await runCommand(goPath, ['install', ldflags, pkg], { env, cwd: staging, timeoutMs: GO_TIMEOUT_MS });
          if (result.code !== 0) throw new Error(describeFailure('go install', result));
          const built = join(staging, exeName('temporal'));
          if (!(await isExecutableFile(built))) throw new Error(`go install succeeded but ${built} is missing`);
          return built;
        });
        return { way, path: target };
      } catch (err) {
        return { way, reason: (err as Error).message };
      }
    },
    () => ctx.log(`waiting for another process building the Temporal CLI (lock ${lockPath})`),
  );
}
