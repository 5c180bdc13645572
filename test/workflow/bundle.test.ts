import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { workflowBundlerOptions } from '../../src/worker/workflow-code.js';

const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

describe('the workflow bundle', () => {
  it('bundles the workflow code with no Node module reaching it', async () => {
    const { code } = await bundleWorkflowCode({ ...workflowBundlerOptions(), logger: quiet });
    expect(code).toContain('arborSession');
    expect(code).toContain('sessionWorkflow');
    expect(code).not.toMatch(/require\(["']node:/);
    expect(code).not.toMatch(/from ["'](openai|undici)["']/);
    // zod is loaded once and shared by every workflow in the worker, not evaluated again for each cached session.
    expect(code).toMatch(/preloadModules\(\) \{\s*__webpack_require__\([^)]*"\.\/src\/workflows\/shared-modules\.ts"\)/);
  });

  it('refuses workflow code that imports a Node module, so the check above can fail', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'arbor-bundle-'));
    const file = join(dir, 'bad-workflows.ts');
    await writeFile(
      file,
      "import { readFileSync } from 'node:fs';\nexport async function badWorkflow() { return readFileSync('/etc/hostname', 'utf8'); }\n",
    );
    const errors: string[] = [];
    const logger = { ...quiet, error: (message: string, meta?: unknown) => errors.push(`${message} ${JSON.stringify(meta ?? '')}`) };
    await expect(bundleWorkflowCode({ workflowsPath: file, logger })).rejects.toThrow(/Webpack finished with errors/);
    expect(errors.join('\n')).toMatch(/fs/);
  });
});
