import { describe, expect, it } from 'vitest';
import { tracingSettingsFromEnv } from '../../src/tracing/tracing-settings.js';
import { RunSpanIds } from '../../src/workflows/tracing/span-ids.js';

describe('tracing settings from the OTEL variables', () => {
  it('are off when no OTLP endpoint is set, whatever else is', () => {
    expect(tracingSettingsFromEnv({})).toBeUndefined();
    expect(tracingSettingsFromEnv({ OTEL_SERVICE_NAME: 'arbor', ARBOR_TRACE_CONTENT: '1' })).toBeUndefined();
  });

  it('are on with either endpoint variable, without content unless asked for', () => {
    expect(tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toEqual({ content: false });
    expect(tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' })).toEqual({ content: false });
    expect(tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x', ARBOR_TRACE_CONTENT: '1' })).toEqual({ content: true });
    expect(
      tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x', OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' }),
    ).toEqual({
      content: true,
    });
  });

  it('are off when OTEL_SDK_DISABLED is true or the traces exporter is none, endpoint or not', () => {
    expect(tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x', OTEL_SDK_DISABLED: 'TRUE' })).toBeUndefined();
    expect(tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x', OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
  });
});

describe('the span ids of a workflow run', () => {
  it('are the same on every replay of the run and differ between runs and between spans', () => {
    const draw = (runId: string) => {
      const ids = new RunSpanIds(runId);
      return [ids.generateTraceId(), ...Array.from({ length: 1000 }, () => ids.generateSpanId())];
    };
    const first = draw('run-a');
    expect(draw('run-a')).toEqual(first);
    expect(first[0]).toMatch(/^[0-9a-f]{32}$/);
    for (const id of first.slice(1)) expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(new Set(first).size).toBe(first.length);
    expect(draw('run-b')[0]).not.toBe(first[0]);
  });
});
