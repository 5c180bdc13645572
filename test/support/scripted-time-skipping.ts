import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll } from 'vitest';
import type { ModelSettings } from '../../src/activities/model-settings.js';
import { SessionHandle } from '../../src/client/session-handle.js';
import { sessionWorkflowType, type SessionInput } from '../../src/shared/session.js';
import type { arborSessionV2 } from '../../src/workflows/session-workflow.js';
import { FakeOpenAI } from './fake-openai.js';
import { ScriptedModel } from './scripted-model.js';
import { createTimeSkippingEnvironment } from './time-skipping.js';

export interface ScriptedTimeSkipping {
  readonly env: TestWorkflowEnvironment;
  readonly settings: ModelSettings;
  readonly fake: FakeOpenAI;
  readonly model: ScriptedModel;
  /** Starts a session workflow on the task queue and returns its handle. */
  start(taskQueue: string, input: SessionInput, id?: string): Promise<SessionHandle>;
  /** A label made unique, so each test's scripts and sessions stay apart. */
  unique(label: string): string;
}

/**
 * For a describe block: a time-skipping Temporal server and a fake OpenAI-compatible server whose replies a
 * ScriptedModel routes by session, both started before the tests and stopped after them.
 */
export function scriptedTimeSkipping(modelName: string): ScriptedTimeSkipping {
  const fake = new FakeOpenAI();
  const model = new ScriptedModel(fake);
  let env: TestWorkflowEnvironment | undefined;
  let settings: ModelSettings | undefined;

  beforeAll(async () => {
    env = await createTimeSkippingEnvironment();
    await fake.start();
    settings = { apiKey: `sk-${modelName}`, baseURL: fake.baseURL, defaultModel: modelName, requestTimeoutMs: 30_000 };
  });

  afterAll(async () => {
    await env?.teardown();
    await fake.stop();
  });

  return {
    get env() {
      if (!env) throw new Error('the time-skipping environment starts in beforeAll');
      return env;
    },
    get settings() {
      if (!settings) throw new Error('the model settings are made in beforeAll');
      return settings;
    },
    fake,
    model,
    async start(taskQueue, input, id = randomUUID()) {
      await this.env.client.workflow.start<typeof arborSessionV2>(sessionWorkflowType, { workflowId: id, taskQueue, args: [input] });
      return new SessionHandle(id, this.env.client);
    },
    unique: (label) => `${label} ${randomUUID()}`,
  };
}
