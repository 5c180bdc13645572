import type { Tracer } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ClientInterceptors } from '@temporalio/client';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  makeWorkflowExporter,
} from '@temporalio/interceptors-opentelemetry';
import type { ActivityInterceptorsFactory, WorkerOptions } from '@temporalio/worker';
import { tracedWorkflowInterceptorModule } from '../worker/workflow-code.js';

export function clientInterceptors(tracer: Tracer): ClientInterceptors {
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor({ tracer })] };
}

/**
 * Activity interceptors (each activity a span under the workflow span that scheduled it), the workflow interceptor
 * module (used when the workflow code is bundled at start) and the `exporter` sink, which the SDK does not call on
 * replay.
 */
export function workerOptions(tracer: Tracer, processor: SpanProcessor, resource: Resource): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  return {
    interceptors: { workflowModules: [tracedWorkflowInterceptorModule()], activity: activityInterceptors(tracer) },
    sinks: { exporter: makeWorkflowExporter(processor, resource) },
  };
}

export function activityInterceptors(tracer: Tracer): ActivityInterceptorsFactory[] {
  return [
    (ctx) => ({
      inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer }),
      outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
    }),
  ];
}
