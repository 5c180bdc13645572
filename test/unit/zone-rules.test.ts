import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
let eslint: ESLint;

/** The rules the project's lint config reports for `code` placed in an existing file of the tree (its text replaced). */
async function rulesBroken(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}${file}` });
  return (result?.messages ?? []).map((message) => `${message.ruleId}: ${message.message}`);
}

describe('the lint rules of the zones', () => {
  beforeAll(() => {
    eslint = new ESLint({ cwd: root });
  });

  it('refuse a Node built-in, a Node-side Temporal package and an I/O library in workflow code', async () => {
    const broken = await rulesBroken(
      'src/workflows/inbox.ts',
      [
        "import { readFileSync } from 'node:fs';",
        "import { randomUUID } from 'crypto';",
        "import { Client } from '@temporalio/client';",
        "import OpenAI from 'openai';",
        "import { fetch } from 'undici';",
        'export const used = [readFileSync, randomUUID, Client, OpenAI, fetch];',
      ].join('\n'),
    );
    expect(broken.filter((line) => line.startsWith('@typescript-eslint/no-restricted-imports'))).toHaveLength(5);
    expect(broken.join('\n')).toContain('no Node built-ins');
  });

  it('let workflow code import an activity’s type but not its value', async () => {
    const typeOnly = await rulesBroken(
      'src/workflows/inbox.ts',
      "import type { Activities } from '../activities/index.js';\nexport type Used = Activities;\n",
    );
    expect(typeOnly).toEqual([]);
    const value = await rulesBroken(
      'src/workflows/tools/reply.ts',
      "import { createActivities } from '../../activities/index.js';\nexport const used = createActivities;\n",
    );
    expect(value.join('\n')).toContain('import their types only');
  });

  it('refuse workflow code reaching the Node side’s folders', async () => {
    const broken = await rulesBroken(
      'src/workflows/inbox.ts',
      "import { ArborClientError } from '../client/errors.js';\nexport const used = ArborClientError;\n",
    );
    expect(broken.join('\n')).toContain('Workflow code imports src/shared/ and src/workflows/ only');
  });

  it('keep src/shared/ the bottom zone', async () => {
    const broken = await rulesBroken(
      'src/shared/titles.ts',
      "import { runTurn } from '../workflows/turn.js';\nimport { readFile } from 'node:fs/promises';\nexport const used = [runTurn, readFile];\n",
    );
    expect(broken.join('\n')).toContain('src/shared/ is the bottom zone');
    expect(broken.join('\n')).toContain('no Node built-ins');
  });

  it('refuse the Node side importing workflow code, even for a type', async () => {
    const broken = await rulesBroken(
      'src/client/arbor-client.ts',
      "import type { arborSessionV2 } from '../workflows/session-workflow.js';\nexport type Used = typeof arborSessionV2;\n",
    );
    expect(broken.join('\n')).toContain('The Node side does not import workflow code');
  });

  it('refuse a promise left floating', async () => {
    const broken = await rulesBroken('src/client/errors.ts', 'async function later(): Promise<void> {}\nlater();\nexport {};\n');
    expect(broken.join('\n')).toContain('@typescript-eslint/no-floating-promises');
  });

  it('ask for type-only imports to say so', async () => {
    const broken = await rulesBroken('src/client/errors.ts', "import { Client } from '@temporalio/client';\nexport type Used = Client;\n");
    expect(broken.join('\n')).toContain('@typescript-eslint/consistent-type-imports');
  });
});
