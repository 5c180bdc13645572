import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { inject } from 'vitest';
import { createActivities, type ActivityDependencies } from '../../src/activities/index.js';
import type { ModelSettings } from '../../src/activities/model-settings.js';

export const demoModel: ModelSettings = { defaultModel: 'demo', requestTimeoutMs: 5_000 };

/** The bundler's logger for tests: errors only. */
export const quietBundlerLogger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };

/** Today's workflow code, bundled once for the whole test run by the global setup. */
export async function workflowBundle(): Promise<{ codePath: string }> {
  return { codePath: inject('workflowBundlePath') };
}

export function createTimeSkippingEnvironment(): Promise<TestWorkflowEnvironment> {
  return TestWorkflowEnvironment.createTimeSkipping({ server: { executable: inject('testServerExecutable') } });
}

/**
 * Runs `body` while a worker with the given model serves a fresh task queue of the test environment; `replaced`
 * swaps activities for the test's own (faults), the others are Arbor's.
 */
export async function withWorker<T>(
  env: TestWorkflowEnvironment,
  model: ModelSettings,
  body: (taskQueue: string) => Promise<T>,
  extra: Partial<ActivityDependencies> = {},
  replaced: Record<string, (...args: never[]) => Promise<unknown>> = {},
): Promise<T> {
  const taskQueue = `ts-${randomUUID()}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await workflowBundle(),
    activities: {
      ...createActivities({ client: env.client, model, searchAttributes: false, search: { engines: [] }, webFetch: {}, ...extra }),
      ...replaced,
    },
  });
  return worker.runUntil(() => body(taskQueue));
}
