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
export function workerOptions(
  tracer: Tracer,
  processor: SpanProcessor,
  resource: Resource,
  bundled: boolean,
): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  // A bundle made beforehand has the workflow interceptors in it already (the worker would warn it ignores them).
  const workflowModules = bundled ? {} : { workflowModules: [tracedWorkflowInterceptorModule()] };
  return {
    interceptors: { ...workflowModules, activity: activityInterceptors(tracer) },
    sinks: { exporter: workflowSpanSink(makeWorkflowExporter(processor, resource)) },
  };
}

type WorkflowExporterSink = ReturnType<typeof makeWorkflowExporter>;

/** How many workflow span ids a worker remembers, to send each once. */
const rememberedSpans = 20_000;

/**
 * The workflow spans' sink, around the package's. The package copies the whole WorkflowInfo into every span's
 * attributes, memo and search attributes included (a session's title, its owner): only the workflow's identifiers are
 * passed on. And a workflow task the server did not take (a signal arrived meanwhile, a speculative task dropped) is
 * run again live, so its spans come again: their ids are the same (RunSpanIds), and a span already sent is dropped.
 */
function workflowSpanSink(sink: WorkflowExporterSink): WorkflowExporterSink {
  const sent = new Set<string>();
  return {
    export: {
      fn: (info, spans) => {
        const fresh = spans.filter((span) => {
          const key = `${span.spanContext.traceId}/${span.spanContext.spanId}`;
          if (sent.has(key)) return false;
          sent.add(key);
          // A Set iterates in insertion order: the oldest id is forgotten first.
          if (sent.size > rememberedSpans) sent.delete(sent.values().next().value!);
          return true;
        });
        if (fresh.length === 0) return;
        const identifiers = { workflowId: info.workflowId, runId: info.runId, workflowType: info.workflowType, taskQueue: info.taskQueue };
        return sink.export.fn(identifiers as typeof info, fresh);
      },
    },
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
