import type { Tracing } from './tracing-state.js';
import type { TracingSettings } from './tracing-settings.js';

/**
 * The process's tracing for these settings (none: undefined, and nothing is loaded): the OpenTelemetry SDK is
 * imported only when tracing is on, so a worker or client without it pays nothing.
 */
export async function loadTracing(settings: TracingSettings | undefined): Promise<Tracing | undefined> {
  if (!settings) return undefined;
  const { startTracing } = await import('./tracing-runtime.js');
  return startTracing(settings);
}
