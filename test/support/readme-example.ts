import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The first TypeScript block after a README heading, with the package's own names pointed at its source. */
export async function readmeExample(heading: string): Promise<string> {
  const readme = await readFile(`${root}README.md`, 'utf8');
  const section = readme.slice(readme.indexOf(`\n${heading}\n`));
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error(`no TypeScript example under ${heading}`);
  return block.replace(/from 'arbor'/g, `from '${root}src/index.ts'`).replace(/from 'arbor\/client'/g, `from '${root}src/client.ts'`);
}
