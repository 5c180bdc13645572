import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { OpenTelemetrySinks, SerializableSpan } from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import { proxySinks } from '@temporalio/workflow';

/**
 * Sends workflow spans out of the sandbox through the `exporter` sink of @temporalio/interceptors-opentelemetry
 * (its worker side, `makeWorkflowExporter`, hands them to the worker's span processor). The SDK calls no sink on
 * replay, so a replayed span is not sent again.
 */
export class SinkSpanExporter implements SpanExporter {
  private readonly sink = proxySinks<OpenTelemetrySinks>().exporter;

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.sink.export(spans.map(serializable));
    done({ code: ExportResultCode.SUCCESS });
  }

  async shutdown(): Promise<void> {}
}

function serializable(span: ReadableSpan): SerializableSpan {
  const { traceState, ...context } = span.spanContext();
  return {
    name: span.name,
    kind: span.kind,
    // A TraceState loses its methods crossing the isolate boundary: it goes as its string.
    spanContext: { ...context, ...(traceState ? { traceState: traceState.serialize() } : {}) },
    ...(span.parentSpanId !== undefined ? { parentSpanId: span.parentSpanId } : {}),
    startTime: span.startTime,
    endTime: span.endTime,
    status: span.status,
    attributes: span.attributes,
    links: span.links,
    events: span.events,
    duration: span.duration,
    ended: span.ended,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
    instrumentationLibrary: span.instrumentationLibrary,
  };
}
