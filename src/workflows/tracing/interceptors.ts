/**
 * Workflow interceptors of a traced worker (bundled only when the worker traces, see src/tracing/): the
 * OpenTelemetry interceptors of @temporalio/interceptors-opentelemetry, whose spans take their ids from RunSpanIds
 * rather than from the workflow's random source, and Arbor's tracer for the turn and tool spans. Spans leave the
 * workflow through the `exporter` sink, which the SDK does not call on replay: a replayed span is not sent again.
 */
// First: it gives the sandbox the `performance` global OpenTelemetry's modules read as they load.
import '@temporalio/interceptors-opentelemetry/lib/workflow/runtime.js';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Tracer } from '@opentelemetry/api';
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import { SpanExporter } from '@temporalio/interceptors-opentelemetry/lib/workflow/span-exporter.js';
import {
  workflowInfo,
  type Next,
  type QueryInput,
  type SignalInput,
  type UpdateInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
} from '@temporalio/workflow';
import { RunSpanIds } from './span-ids.js';
import { useWorkflowTracer } from './workflow-tracer.js';

export const tracerName = 'arbor';

class ArborInboundInterceptor extends OpenTelemetryInboundInterceptor {
  constructor(protected override readonly tracer: Tracer) {
    super();
  }

  /**
   * Signals, updates and queries are left untraced. Wrapping their handlers in spans completes them a few microtasks
   * later, after commands the workflow issues meanwhile (the next model call): a history recorded without tracing
   * then no longer replays (a sendMessage update's completion came before the activity). Queries, besides, are how
   * clients poll sessions, and they run between activations, where ids drawn for them would shift later spans' ids.
   */
  override handleSignal(input: SignalInput, next: Next<WorkflowInboundCallsInterceptor, 'handleSignal'>): Promise<void> {
    return next(input);
  }

  override handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>): Promise<unknown> {
    return next(input);
  }

  override validateUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'validateUpdate'>): void {
    next(input);
  }

  override handleQuery(input: QueryInput, next: Next<WorkflowInboundCallsInterceptor, 'handleQuery'>): Promise<unknown> {
    return next(input);
  }
}

class ArborOutboundInterceptor extends OpenTelemetryOutboundInterceptor {
  constructor(protected override readonly tracer: Tracer) {
    super();
  }
}

export const interceptors = (): WorkflowInterceptors => {
  const provider = new BasicTracerProvider({ idGenerator: new RunSpanIds(workflowInfo().runId) });
  provider.addSpanProcessor(new SimpleSpanProcessor(new SpanExporter()));
  const tracer = provider.getTracer(tracerName);
  useWorkflowTracer(tracer);
  return {
    inbound: [new ArborInboundInterceptor(tracer)],
    outbound: [new ArborOutboundInterceptor(tracer)],
    internals: [new OpenTelemetryInternalsInterceptor()],
  };
};
