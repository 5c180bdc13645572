import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { workflowBundleFromEnv } from '../../src/worker/workflow-bundle-setting.js';
import { prebuiltWorkflowBundlePath } from '../../src/worker/workflow-code.js';

describe('ARBOR_WORKFLOW_BUNDLE', () => {
  let folder: string;
  let bundle: string;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'arbor-bundle-setting-'));
    bundle = join(folder, 'workflow-bundle.js');
    await writeFile(bundle, '// a bundle\n');
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));
  afterEach(() => vi.unstubAllEnvs());

  it('names no bundle when unset or empty', () => {
    expect(workflowBundleFromEnv({})).toBeUndefined();
    expect(workflowBundleFromEnv({ ARBOR_WORKFLOW_BUNDLE: ' ' })).toBeUndefined();
  });

  it('gives the absolute path of the file it names, relative paths from the working folder', () => {
    expect(workflowBundleFromEnv({ ARBOR_WORKFLOW_BUNDLE: bundle })).toBe(bundle);
    expect(workflowBundleFromEnv({ ARBOR_WORKFLOW_BUNDLE: relative(process.cwd(), bundle) })).toBe(bundle);
  });

  it('refuses a path that names no file, naming it, rather than bundling instead', () => {
    const missing = join(folder, 'missing.js');
    expect(() => workflowBundleFromEnv({ ARBOR_WORKFLOW_BUNDLE: missing })).toThrow(
      `ARBOR_WORKFLOW_BUNDLE names ${missing}, which does not exist`,
    );
  });

  it('is the prebuilt bundle of an untraced worker, and never of a traced one, whose bundle has the tracing interceptors', () => {
    vi.stubEnv('ARBOR_WORKFLOW_BUNDLE', bundle);
    expect(prebuiltWorkflowBundlePath()).toBe(bundle);
    expect(prebuiltWorkflowBundlePath(true)).not.toBe(bundle);
  });
});
