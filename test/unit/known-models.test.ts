import { describe, expect, it } from 'vitest';
import { configuredModels, createModelCheck } from '../../src/activities/known-models.js';

const settings = { defaultModel: 'big-model', fetchModel: 'fetch-model', summaryModel: 'summary-model', requestTimeoutMs: 10_000 };

describe('the models a sub-agent may name on a worker without a model list', () => {
  it('include the configured summary model (ARBOR_SUMMARY_MODEL) beside the default and webFetch models', async () => {
    expect(configuredModels(settings)).toEqual(['big-model', 'fetch-model', 'summary-model']);
    expect(await createModelCheck(settings, undefined).checkModel('summary-model')).toEqual({ ok: true, result: 'summary-model' });
  });

  it('refuse another model, naming the summary model among those the worker knows', async () => {
    const refusal = await createModelCheck(settings, undefined).checkModel('ghost-model');
    expect(refusal).toMatchObject({
      ok: false,
      error: expect.stringContaining('Models it knows: big-model, fetch-model, summary-model, demo.'),
    });
  });
});
