import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource, detectResourcesSync, envDetectorSync } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { activityInterceptors, clientInterceptors, workerOptions } from './temporal-interceptors.js';
import { activeTracing, setActiveTracing, type Tracing } from './tracing-state.js';
import type { TracingSettings } from './tracing-settings.js';

const defaultServiceName = 'arbor';

/**
 * Starts the process's tracing once (later calls return the same, whatever settings they give): an OTLP/HTTP
 * exporter configured by the OTEL_* variables, registered as the global provider, with the W3C trace context
 * propagator and an AsyncLocalStorage context manager, so that spans made in activities join their activity's trace.
 */
export function startTracing(settings: TracingSettings): Tracing {
  const running = activeTracing();
  if (running) return running;
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the default name.
  const resource = new Resource({ [ATTR_SERVICE_NAME]: defaultServiceName }).merge(detectResourcesSync({ detectors: [envDetectorSync] }));
  const processor = new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register();
  const tracer = provider.getTracer('arbor');
  const tracing: Tracing = {
    settings,
    tracer,
    clientInterceptors: () => clientInterceptors(tracer),
    workerOptions: (bundled) => workerOptions(tracer, processor, resource, bundled),
    activityInterceptors: () => activityInterceptors(tracer),
    flush: () => provider.forceFlush(),
  };
  setActiveTracing(tracing);
  return tracing;
}
