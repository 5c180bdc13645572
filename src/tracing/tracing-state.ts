import type { Tracer } from '@opentelemetry/api';
import type { ClientInterceptors } from '@temporalio/client';
import type { ActivityInterceptorsFactory, WorkerOptions } from '@temporalio/worker';
import type { TracingSettings } from './tracing-settings.js';

/** The process's tracing (tracing-runtime.ts): one provider exporting over OTLP/HTTP, shared by its workers and clients. */
export interface Tracing {
  readonly settings: TracingSettings;
  readonly tracer: Tracer;
  /** For a client: its calls' trace context goes to the workflows in their headers. */
  clientInterceptors(): ClientInterceptors;
  /**
   * For the session worker: activity and workflow interceptors, and the sink workflow spans leave the sandbox
   * through; `bundled`: the worker runs a bundle made beforehand (with workflowBundlerOptions(true)).
   */
  workerOptions(bundled: boolean): Pick<WorkerOptions, 'interceptors' | 'sinks'>;
  /** For the workers of host tools' own task queues. */
  activityInterceptors(): ActivityInterceptorsFactory[];
  /** Sends the spans still batched (a worker calls it when it stops). */
  flush(): Promise<void>;
}

let active: Tracing | undefined;

/** The process's tracing, once a traced worker or client started it; undefined without tracing (nothing loaded). */
export function activeTracing(): Tracing | undefined {
  return active;
}

export function setActiveTracing(tracing: Tracing): void {
  active = tracing;
}
