/**
 * Writes the JSON Schemas of Arbor's wire protocol into schemas/ (npm run schemas), from the zod schemas the workflow
 * and the SDK check with. test/unit/wire-schemas.test.ts fails when the committed files differ from what this writes.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { wireJsonSchemas, wireSchemaText } from '../src/client/wire-schemas.js';

const folder = fileURLToPath(new URL('../schemas/', import.meta.url));
await mkdir(folder, { recursive: true });
for (const [name, document] of Object.entries(wireJsonSchemas())) {
  await writeFile(`${folder}${name}.json`, wireSchemaText(document));
  console.log(`schemas/${name}.json`);
}
