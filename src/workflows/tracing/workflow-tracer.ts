import type { Tracer } from '@opentelemetry/api';
import { workflowLocal } from '../workflow-local.js';

/**
 * The tracer of Arbor's spans in workflow code. Set only by the tracing interceptors (tracing/interceptors.ts), which
 * are in the workflow bundle only when the worker traces: otherwise undefined, and Arbor makes no span at all. Per
 * workflow (see workflow-local.ts): each workflow's interceptors set it.
 */
const tracer = workflowLocal<Tracer | undefined>('workflowTracer', undefined);

export function useWorkflowTracer(given: Tracer): void {
  tracer.set(given);
}

export function workflowTracer(): Tracer | undefined {
  return tracer.get();
}
