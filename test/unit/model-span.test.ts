import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallModelInput } from '../../src/shared/model.js';
import { traceModelCall } from '../../src/tracing/model-span.js';
import { startTracing } from '../../src/tracing/tracing-runtime.js';
import type { Tracing } from '../../src/tracing/tracing-state.js';
import { OtlpReceiver } from '../support/otlp-receiver.js';

const receiver = new OtlpReceiver();
let tracing: Tracing;
beforeAll(async () => {
  await receiver.start();
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
  tracing = startTracing({ content: true });
});
afterAll(async () => {
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  await receiver.stop();
});

const input = { session_id: 's-1', run_id: 'r-1', model: 'gpt-test', turn: 2, round: 1 } as CallModelInput;
const completion = {
  id: 'chatcmpl-1',
  model: 'gpt-test-2026',
  choices: [{ finish_reason: 'stop', message: { role: 'assistant', content: 'the reply' } }],
  usage: { prompt_tokens: 12, completion_tokens: 5 },
};

describe('a model call span with ARBOR_TRACE_CONTENT on', () => {
  it('carries the conversation and the reply beside the model, usage and finish reason', async () => {
    await tracing.tracer.startActiveSpan('RunActivity:callModel', async (activity) => {
      await traceModelCall(input, [{ role: 'user', content: 'the prompt' }], async (record) => {
        record(completion, { content: 'the reply', tool_calls: [] });
      });
      activity.end();
    });
    await tracing.flush();
    const span = receiver.spans.find((received) => received.name === 'chat gpt-test');
    expect(span?.attributes).toMatchObject({
      'gen_ai.request.model': 'gpt-test',
      'gen_ai.response.model': 'gpt-test-2026',
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 5,
      'gen_ai.response.finish_reasons': ['stop'],
    });
    expect(span?.attributes['gen_ai.input.messages']).toContain('the prompt');
    expect(span?.attributes['gen_ai.output.messages']).toContain('the reply');
  });

  it('makes no span outside a traced activity', async () => {
    const before = receiver.spans.length;
    await traceModelCall({ ...input, model: 'untraced' }, [], async () => {});
    await tracing.flush();
    expect(receiver.spans.slice(before).filter((span) => span.name === 'chat untraced')).toEqual([]);
  });
});
