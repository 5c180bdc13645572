import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A folder with a stand-in page for tests of the console's API, not its page: the server still puts its CSRF secret
 * into the page's head, which is all such a test reads of it.
 */
export async function standInConsolePage(): Promise<string> {
  const assetsDir = await mkdtemp(join(tmpdir(), 'arbor-console-stand-in-'));
  await writeFile(join(assetsDir, 'index.html'), '<html><head></head><body><div id="app"></div></body></html>');
  return assetsDir;
}
