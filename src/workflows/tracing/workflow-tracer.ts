import type { Tracer } from '@opentelemetry/api';

/**
 * The tracer of Arbor's spans in workflow code. Set only by the tracing interceptors (tracing/interceptors.ts), which
 * are in the workflow bundle only when the worker traces: otherwise undefined, and Arbor makes no span at all.
 */
let tracer: Tracer | undefined;

export function useWorkflowTracer(given: Tracer): void {
  tracer = given;
}

export function workflowTracer(): Tracer | undefined {
  return tracer;
}
