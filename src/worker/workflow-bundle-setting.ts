import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * ARBOR_WORKFLOW_BUNDLE: the path of a workflow bundle of Arbor's code (without the tracing interceptors) built
 * beforehand, which workers, the testing kit and a fork's local replay run instead of bundling the code themselves.
 * A path that names no file throws, so a typo never falls back to bundling silently.
 */
export function workflowBundleFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env.ARBOR_WORKFLOW_BUNDLE?.trim();
  if (!given) return undefined;
  const path = resolve(given);
  if (!existsSync(path)) throw new Error(`ARBOR_WORKFLOW_BUNDLE names ${path}, which does not exist`);
  return path;
}
