import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The workflow entry module: TypeScript source when running from src (tests), compiled JavaScript from dist. */
export function workflowsPath(): string {
  for (const file of ['./workflows/index.ts', './workflows/index.js']) {
    const path = fileURLToPath(new URL(file, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error('cannot find the workflow code next to ' + fileURLToPath(import.meta.url));
}

/** A workflow bundle prepared at build time (npm run build), which saves bundling at each worker start. */
export function prebuiltWorkflowBundlePath(): string | undefined {
  const path = fileURLToPath(new URL('./workflow-bundle.js', import.meta.url));
  return existsSync(path) ? path : undefined;
}

/**
 * Node modules the workflow bundle leaves out: cron-parser's file reader (CronFileParser) requires fs, but workflow
 * code only parses expressions, so fs is never reached.
 */
export const workflowIgnoredModules = ['fs', 'fs/promises'];
