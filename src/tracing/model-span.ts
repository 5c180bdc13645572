import { SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import type { CallModelInput, ModelReply } from '../shared/model.js';
import { activeTracing } from './tracing-state.js';

/** Records what the endpoint answered on the model call's span (a no-op when the process does not trace). */
export type RecordModelAnswer = (completion: unknown, reply: ModelReply) => void;

/**
 * One model call as a span, with the GenAI semantic conventions: `chat <model>`, its model, the tokens it used and
 * why it stopped. Prompts and replies (`gen_ai.input.messages`, `gen_ai.output.messages`) only with
 * ARBOR_TRACE_CONTENT=1. Without tracing, `call` runs as it is.
 */
export async function traceModelCall<T>(
  input: CallModelInput,
  messages: unknown,
  call: (record: RecordModelAnswer) => Promise<T>,
): Promise<T> {
  const tracing = activeTracing();
  // Only under a traced worker's activity span: a worker without tracing, in a process where another traces, adds none.
  if (!tracing || !trace.getActiveSpan()) return call(() => {});
  const attributes: Attributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.system': 'openai',
    'gen_ai.request.model': input.model,
    'gen_ai.conversation.id': input.session_id,
    'arbor.turn': input.turn,
    'arbor.round': input.round,
    ...(tracing.settings.content ? { 'gen_ai.input.messages': JSON.stringify(messages) } : {}),
  };
  return tracing.tracer.startActiveSpan(`chat ${input.model}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      return await call((completion, reply) => span.setAttributes(answerAttributes(completion, reply, tracing.settings.content)));
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

function answerAttributes(completion: unknown, reply: ModelReply, content: boolean): Attributes {
  const body = record(completion);
  const usage = tokenUsage(record(reply).usage) ?? tokenUsage(body.usage);
  const finishReasons = (Array.isArray(body.choices) ? body.choices : [])
    .map((choice) => record(choice).finish_reason)
    .filter((reason): reason is string => typeof reason === 'string');
  return {
    ...(typeof body.model === 'string' ? { 'gen_ai.response.model': body.model } : {}),
    ...(typeof body.id === 'string' ? { 'gen_ai.response.id': body.id } : {}),
    ...(finishReasons.length > 0 ? { 'gen_ai.response.finish_reasons': finishReasons } : {}),
    ...(usage?.input !== undefined ? { 'gen_ai.usage.input_tokens': usage.input } : {}),
    ...(usage?.output !== undefined ? { 'gen_ai.usage.output_tokens': usage.output } : {}),
    'arbor.tool_calls': reply.tool_calls.length,
    ...(content
      ? { 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', content: reply.content, tool_calls: reply.tool_calls }]) }
      : {}),
  };
}

/** Usage as the reply carries it (`input_tokens`/`output_tokens`) or as a chat completion does (`prompt_tokens`...). */
function tokenUsage(value: unknown): { input?: number; output?: number } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const usage = value as Record<string, unknown>;
  const input = usage.input_tokens ?? usage.prompt_tokens;
  const output = usage.output_tokens ?? usage.completion_tokens;
  if (typeof input !== 'number' && typeof output !== 'number') return undefined;
  return { ...(typeof input === 'number' ? { input } : {}), ...(typeof output === 'number' ? { output } : {}) };
}

function failed(span: Span, error: unknown): void {
  const type = record(error).type;
  const name = typeof type === 'string' ? type : error instanceof Error ? error.name : 'Error';
  // The error's type only: a provider's message may quote the request.
  span.setAttribute('error.type', name);
  span.setStatus({ code: SpanStatusCode.ERROR, message: name });
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}
