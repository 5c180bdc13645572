/** Whether a worker or client traces, from the standard OpenTelemetry variables (README "Tracing"). */
export interface TracingSettings {
  /** Whether prompts, replies and tool calls' arguments go into model spans (ARBOR_TRACE_CONTENT=1). */
  content: boolean;
}

const endpointVariables = ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT'] as const;

/**
 * On when an OTLP endpoint is set (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT), unless
 * OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none; undefined otherwise (off: nothing is installed). The exporter
 * itself reads the other variables (headers, timeouts, OTEL_BSP_*), the resource OTEL_SERVICE_NAME and
 * OTEL_RESOURCE_ATTRIBUTES.
 */
export function tracingSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): TracingSettings | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return undefined;
  if (!endpointVariables.some((name) => env[name]?.trim())) return undefined;
  return { content: isOn(env.ARBOR_TRACE_CONTENT) || isOn(env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT) };
}

function isOn(value: string | undefined): boolean {
  return ['1', 'true', 'on', 'yes'].includes(value?.trim().toLowerCase() ?? '');
}
