import { existsSync } from 'node:fs';
import type { BundleOptions } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { workflowBundleFromEnv } from './workflow-bundle-setting.js';

/** The workflow entry module: TypeScript source when running from src (tests), compiled JavaScript from dist. */
export function workflowsPath(): string {
  return workflowModulePath('index');
}

/** The workflow interceptors of a traced worker (src/workflows/tracing/interceptors.ts), bundled only when it traces. */
export function tracedWorkflowInterceptorModule(): string {
  return workflowModulePath('tracing/interceptors');
}

function workflowModulePath(name: string): string {
  for (const file of [`../workflows/${name}.ts`, `../workflows/${name}.js`]) {
    const path = fileURLToPath(new URL(file, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error(`cannot find the workflow module ${name} next to ${fileURLToPath(import.meta.url)}`);
}

/**
 * A workflow bundle prepared beforehand, which saves bundling at each worker start: ARBOR_WORKFLOW_BUNDLE's (untraced
 * only), else the one npm run build ships; `traced`: the one with the tracing interceptors in it.
 */
export function prebuiltWorkflowBundlePath(traced = false): string | undefined {
  const given = traced ? undefined : workflowBundleFromEnv();
  if (given) return given;
  const path = fileURLToPath(new URL(`../${prebuiltBundleName(traced)}`, import.meta.url));
  return existsSync(path) ? path : undefined;
}

let remembered: string | undefined;

/** A worker of this process runs this bundle of Arbor's workflow code (untraced): a fork replays with it too. */
export function rememberWorkflowBundlePath(path: string): void {
  remembered = path;
}

export function rememberedWorkflowBundlePath(): string | undefined {
  return remembered;
}

export function prebuiltBundleName(traced: boolean): string {
  return traced ? 'workflow-bundle-traced.js' : 'workflow-bundle.js';
}

/**
 * Node modules the workflow bundle leaves out: cron-parser's file reader (CronFileParser) requires fs, but workflow
 * code only parses expressions, so fs is never reached.
 */
export const workflowIgnoredModules = ['fs', 'fs/promises'];

type WebpackConfigHook = NonNullable<BundleOptions['webpackConfigHook']>;

/**
 * Arbor's TypeScript in the bundle is compiled for ES2020 instead of the SDK's ES2017 (issue 32): object spread, `?.`
 * and `??` run as the engine's own instead of through swc's helpers (`_object_spread`, `_object_spread_props`, 194
 * calls of them in the session's code, on every event, child start and status write). Node 20 runs ES2020, and so
 * does the workflow sandbox. The same code does the same: no command changes. Class fields (ES2022) are compiled as
 * before. A bundler without the swc rule this looks for is left as it is.
 */
export const workflowCompileTarget = 'es2020';

const compiledForTarget: WebpackConfigHook = (config) => {
  for (const rule of config.module?.rules ?? []) {
    const use = rule && typeof rule === 'object' ? (rule as { use?: unknown }).use : undefined;
    const options = use && typeof use === 'object' ? (use as { options?: { jsc?: { target?: string } } }).options : undefined;
    if (options?.jsc) options.jsc.target = workflowCompileTarget;
  }
  return config;
};

/** How Arbor's workflow code is bundled, wherever it is (worker start, build, tests, benchmarks). */
export function workflowBundlerOptions(traced = false): {
  workflowsPath: string;
  ignoreModules: string[];
  preloadModules: string[];
  webpackConfigHook: WebpackConfigHook;
  workflowInterceptorModules?: string[];
} {
  return {
    workflowsPath: workflowsPath(),
    ignoreModules: workflowIgnoredModules,
    preloadModules: [workflowModulePath('shared-modules')],
    webpackConfigHook: compiledForTarget,
    ...(traced ? { workflowInterceptorModules: [tracedWorkflowInterceptorModule()] } : {}),
  };
}

/** The same, as Worker options that bundle the workflow code when the worker starts. */
export function workflowSourceWorkerOptions(): {
  workflowsPath: string;
  bundlerOptions: { ignoreModules: string[]; preloadModules: string[]; webpackConfigHook: WebpackConfigHook };
} {
  const { workflowsPath, ...bundlerOptions } = workflowBundlerOptions();
  return { workflowsPath, bundlerOptions };
}
