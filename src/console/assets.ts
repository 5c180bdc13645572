import { readFile } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where `npm run build` puts the page (vite, see console-page/vite.config.ts): dist/console-page at the package root. */
export const defaultAssetsDir = fileURLToPath(new URL('../../dist/console-page/', import.meta.url));

const contentTypes: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.map': 'application/json; charset=utf-8',
};

/** A built file under the assets folder (never outside it), or undefined. */
export async function readAsset(assetsDir: string, urlPath: string): Promise<{ body: Buffer; type: string } | undefined> {
  const root = resolve(assetsDir);
  const file = resolve(join(root, decodeURIComponent(urlPath)));
  if (!file.startsWith(root + sep)) return undefined;
  const type = contentTypes[extname(file)];
  if (!type) return undefined;
  try {
    return { body: await readFile(file), type };
  } catch {
    return undefined;
  }
}

const escapeAttribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The page's HTML with the server's settings in meta tags (read by the page's script; CSP forbids inline script). */
export async function pageHtml(assetsDir: string, settings: Record<string, string>): Promise<string> {
  let html: string;
  try {
    html = await readFile(join(assetsDir, 'index.html'), 'utf8');
  } catch {
    throw new Error(`The console's page is not built in ${assetsDir}: run \`npm run build\`.`);
  }
  const metas = Object.entries(settings)
    .map(([name, value]) => `<meta name="arbor-${name}" content="${escapeAttribute(value)}">`)
    .join('');
  return html.replace('<head>', `<head>${metas}`);
}
