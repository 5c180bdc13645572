import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { wireJsonSchemas, wireSchemaText } from '../../src/client/wire-schemas.js';

const folder = fileURLToPath(new URL('../../schemas/', import.meta.url));

describe('the JSON Schemas shipped in schemas/', () => {
  it('are exactly what npm run schemas generates from the zod schemas (run it after changing one)', async () => {
    const generated = wireJsonSchemas();
    const files = (await readdir(folder)).filter((name) => name.endsWith('.json')).sort();
    expect(files).toEqual(
      Object.keys(generated)
        .map((name) => `${name}.json`)
        .sort(),
    );
    for (const [name, document] of Object.entries(generated)) {
      expect(await readFile(`${folder}${name}.json`, 'utf8'), `schemas/${name}.json is stale: npm run schemas`).toBe(
        wireSchemaText(document),
      );
    }
  });

  it('refuse keys no option has, and say which keys a message needs', () => {
    const { 'session-input': session, 'user-message': message } = wireJsonSchemas() as Record<string, Record<string, unknown>>;
    expect(session).toMatchObject({ type: 'object', additionalProperties: false });
    expect(Object.keys(session!.properties as object)).toContain('max_tool_rounds');
    expect(message).toMatchObject({ required: ['content'], properties: { content: { minLength: 1, maxLength: 200_000 } } });
  });
});
