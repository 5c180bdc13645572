import { SpanStatusCode, type Attributes, type Span } from '@opentelemetry/api';
import type { ToolCall } from '../../shared/session.js';
import { workflowTracer } from './workflow-tracer.js';

/**
 * A turn of a session as a span (`turn`), the parent of its model and tool calls' spans. Without tracing (the
 * worker's bundle has no tracing interceptors) it is `run()` itself. No content: ids, numbers and the outcome.
 */
export function traceTurn<T extends string>(attributes: Attributes, run: () => Promise<T>): Promise<T> {
  return traced('turn', { 'gen_ai.operation.name': 'invoke_agent', ...attributes }, run, (span, outcome) =>
    span.setAttribute('arbor.turn.outcome', outcome),
  );
}

/** One tool call as a span (`execute_tool <name>`): its name, call id and outcome, never its arguments or result. */
export function traceToolCall<T extends { is_error: boolean }>(call: ToolCall, run: () => Promise<T>): Promise<T> {
  const attributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': call.name, 'gen_ai.tool.call.id': call.id };
  return traced(`execute_tool ${call.name}`, attributes, run, (span, outcome) => {
    span.setAttribute('arbor.tool.outcome', outcome.is_error ? 'error' : 'ok');
    if (outcome.is_error) span.setStatus({ code: SpanStatusCode.ERROR, message: 'the tool answered with an error' });
  });
}

function traced<T>(name: string, attributes: Attributes, run: () => Promise<T>, finish: (span: Span, result: T) => void): Promise<T> {
  const tracer = workflowTracer();
  if (!tracer) return run();
  return tracer.startActiveSpan(name, { attributes }, (span) =>
    run().then(
      (result) => {
        finish(span, result);
        span.end();
        return result;
      },
      (error: unknown) => {
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'failed' });
        span.end();
        throw error;
      },
    ),
  );
}
