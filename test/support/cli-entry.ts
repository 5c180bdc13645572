import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const builtMain = join(root, 'dist/cli/main.js');
const fromSource = ['--import', 'tsx', 'test/support/cli-main.ts'];

let entry: string[] | undefined;

/**
 * The node arguments that run the CLI with `args` and `env` (paths relative to the project root): the build in `dist/`
 * when it is newer than every source file (as after `npm ci`, whose `prepare` builds it), which starts in about half
 * the CPU time; otherwise, and whenever the command names a TypeScript file (a `--tools` module, ARBOR_TOOLS), which
 * only tsx can load, the source through tsx, so a test never runs a stale build.
 */
export function cliEntry(args: readonly string[] = [], env: NodeJS.ProcessEnv = {}): string[] {
  const namesTypeScript = [...args, ...Object.values(env)].some((value) => typeof value === 'string' && /\.[cm]?tsx?\b/.test(value));
  if (namesTypeScript) return fromSource;
  entry ??= builtIsFresh() ? ['bin/arbor.js'] : fromSource;
  return entry;
}

function builtIsFresh(): boolean {
  return isNewerThanSource(builtMain);
}

/** Whether the built file (`dist/...`) exists and was written after every source file changed. */
export function isNewerThanSource(file: string): boolean {
  let built: number;
  try {
    built = statSync(file).mtimeMs;
  } catch {
    return false;
  }
  return newestModification(join(root, 'src')) <= built;
}

function newestModification(folder: string): number {
  let newest = statSync(folder).mtimeMs;
  for (const item of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, item.name);
    newest = Math.max(newest, item.isDirectory() ? newestModification(path) : statSync(path).mtimeMs);
  }
  return newest;
}
