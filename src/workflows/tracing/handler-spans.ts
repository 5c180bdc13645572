import { context, propagation, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { IdGenerator } from '@opentelemetry/sdk-trace-base';
import { defaultPayloadConverter, type Headers } from '@temporalio/common';
import { hex32 } from './span-ids.js';

/** The header @temporalio/interceptors-opentelemetry carries a caller's trace context in. */
const traceHeader = '_tracer-data';

/** The trace context a traced caller (client, activity, parent session) sent with a signal, update or query. */
export function callerContext(headers: Headers): Context | undefined {
  const encoded = headers[traceHeader];
  if (!encoded) return undefined;
  const carrier = defaultPayloadConverter.fromPayload<Record<string, string>>(encoded);
  const extracted = propagation.extract(context.active(), carrier);
  return trace.getSpanContext(extracted) ? extracted : undefined;
}

/**
 * Runs a handler inside a span, returning the handler's own promise: the handler completes in the same microtask as
 * untraced, so the commands of the workflow task (an update's completion before the next activity) stay in the order
 * histories recorded without tracing have them. The span ends beside it.
 */
export function withHandlerSpan<T>(
  tracer: Tracer,
  name: string,
  parent: Context | undefined,
  attributes: Record<string, string>,
  handler: () => Promise<T>,
): Promise<T> {
  const span = tracer.startSpan(name, { attributes }, parent ?? context.active());
  let result: Promise<T>;
  try {
    result = context.with(trace.setSpan(parent ?? context.active(), span), handler);
  } catch (error) {
    fail(span, error);
    throw error;
  }
  result.then(
    () => span.end(),
    (error: unknown) => fail(span, error),
  );
  return result;
}

function fail(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  span.end();
}

/**
 * Span ids for query spans, derived from the caller's span id: queries run between activations and are not replayed,
 * so an id drawn from the run's counter (RunSpanIds) would shift the ids of every span after it. A query span is made
 * only under a traced caller, whose span id is unique; the trace id is the caller's.
 */
export class CallerDerivedSpanIds implements IdGenerator {
  private seed = '';

  /** The id the next span gets: from this caller span id. */
  deriveFrom(callerSpanId: string): void {
    this.seed = callerSpanId;
  }

  generateTraceId(): string {
    return this.generateSpanId() + this.generateSpanId();
  }

  generateSpanId(): string {
    return hex32(this.seed, 0x9e3779b9) + hex32(this.seed, 0x85ebca6b);
  }
}
