import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

/** Builds the console's page as `npm run build` does, into a fresh folder: tests serve what the source makes today. */
export async function buildConsolePage(): Promise<string> {
  const outDir = join(await mkdtemp(join(tmpdir(), 'arbor-console-page-')), 'page');
  await build({
    configFile: fileURLToPath(new URL('../../console-page/vite.config.ts', import.meta.url)),
    logLevel: 'error',
    build: { outDir, emptyOutDir: true },
  });
  return outDir;
}
