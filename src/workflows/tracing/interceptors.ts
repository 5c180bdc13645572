/**
 * Workflow interceptors of a traced worker (bundled only when the worker traces, see src/tracing/): the
 * OpenTelemetry interceptors of @temporalio/interceptors-opentelemetry, whose spans take their ids from RunSpanIds
 * rather than from the workflow's random source, and Arbor's tracer for the turn and tool spans. Spans leave the
 * workflow through the `exporter` sink, which the SDK does not call on replay: a replayed span is not sent again.
 */
// The package's workflow entry point (its samples' `lib/workflow`; the package root also loads its worker side), and
// first: it gives the sandbox the `performance` global OpenTelemetry's modules read as they load.
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
  SpanName,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { trace, type Tracer } from '@opentelemetry/api';
import {
  workflowInfo,
  type Next,
  type QueryInput,
  type SignalInput,
  type UpdateInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
} from '@temporalio/workflow';
import { streamDeltasSignal } from '../../shared/messages.js';
import { CallerDerivedSpanIds, callerContext, withHandlerSpan } from './handler-spans.js';
import { SinkSpanExporter } from './span-sink.js';
import { RunSpanIds } from './span-ids.js';
import { useWorkflowTracer } from './workflow-tracer.js';

export const tracerName = 'arbor';

/** Up to 121 a model call, carrying text deltas: a span each would bury the turn's own. */
const untracedSignals = new Set([streamDeltasSignal.name]);

class ArborInboundInterceptor extends OpenTelemetryInboundInterceptor {
  constructor(
    protected override readonly tracer: Tracer,
    private readonly queryTracer: Tracer,
    private readonly queryIds: CallerDerivedSpanIds,
  ) {
    super();
  }

  // The package's own handler spans complete the handler a few microtasks late, after commands issued meanwhile (a
  // sendMessage update's completion then comes after the next activity, and histories recorded without tracing no
  // longer replay): these return the handler's own promise.
  override handleSignal(input: SignalInput, next: Next<WorkflowInboundCallsInterceptor, 'handleSignal'>): Promise<void> {
    if (untracedSignals.has(input.signalName)) return next(input);
    return withHandlerSpan(this.tracer, `${SpanName.WORKFLOW_HANDLE_SIGNAL}:${input.signalName}`, callerContext(input.headers), {}, () =>
      next(input),
    );
  }

  override handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>): Promise<unknown> {
    const attributes = { updateId: input.updateId };
    return withHandlerSpan(this.tracer, `${SpanName.WORKFLOW_HANDLE_UPDATE}:${input.name}`, callerContext(input.headers), attributes, () =>
      next(input),
    );
  }

  // A validator runs live for updates it rejects, which are not in history: a span there would shift later span ids.
  override validateUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'validateUpdate'>): void {
    next(input);
  }

  /** Only a traced caller's query gets a span (clients poll sessions with queries), with an id from the caller's. */
  override handleQuery(input: QueryInput, next: Next<WorkflowInboundCallsInterceptor, 'handleQuery'>): Promise<unknown> {
    const parent = callerContext(input.headers);
    const caller = parent ? trace.getSpanContext(parent) : undefined;
    if (!parent || !caller) return next(input);
    this.queryIds.deriveFrom(caller.spanId);
    return withHandlerSpan(this.queryTracer, `${SpanName.WORKFLOW_HANDLE_QUERY}:${input.queryName}`, parent, {}, () => next(input));
  }
}

class ArborOutboundInterceptor extends OpenTelemetryOutboundInterceptor {
  constructor(protected override readonly tracer: Tracer) {
    super();
  }
}

function tracerWith(idGenerator: RunSpanIds | CallerDerivedSpanIds): Tracer {
  const provider = new BasicTracerProvider({ idGenerator });
  provider.addSpanProcessor(new SimpleSpanProcessor(new SinkSpanExporter()));
  return provider.getTracer(tracerName);
}

export const interceptors = (): WorkflowInterceptors => {
  const tracer = tracerWith(new RunSpanIds(workflowInfo().runId));
  const queryIds = new CallerDerivedSpanIds();
  useWorkflowTracer(tracer);
  return {
    inbound: [new ArborInboundInterceptor(tracer, tracerWith(queryIds), queryIds)],
    outbound: [new ArborOutboundInterceptor(tracer)],
    internals: [new OpenTelemetryInternalsInterceptor()],
  };
};
