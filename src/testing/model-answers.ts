import type { ModelStep, RequestMessage, StepUsage } from './model-steps.js';

/** An HTTP answer to one chat-completions request, the same whether it travels in-process or over loopback. */
export interface ModelAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The body of a chat completion with the given text and tool calls, as OpenAI-compatible endpoints write it. */
export function completionBody(
  model: string,
  counter: number,
  reply: { content?: string | null; toolCalls?: { name: string; arguments: string; id?: string }[]; usage?: StepUsage | undefined },
): string {
  const toolCalls: NonNullable<RequestMessage['tool_calls']> | undefined = reply.toolCalls?.map((call, index) => ({
    id: call.id ?? `call_${counter}_${index}`,
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  }));
  return JSON.stringify({
    id: `chatcmpl-${counter}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        finish_reason: toolCalls?.length ? 'tool_calls' : 'stop',
        message: { role: 'assistant', content: reply.content ?? null, ...(toolCalls?.length ? { tool_calls: toolCalls } : {}) },
      },
    ],
    ...(reply.usage ? { usage: usageBody(reply.usage) } : {}),
  });
}

/** A step's usage as OpenAI writes it, with the details objects where cached or reasoning tokens are given. */
function usageBody(usage: StepUsage): Record<string, unknown> {
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
    ...(usage.cached_tokens !== undefined ? { prompt_tokens_details: { cached_tokens: usage.cached_tokens } } : {}),
    ...(usage.reasoning_tokens !== undefined ? { completion_tokens_details: { reasoning_tokens: usage.reasoning_tokens } } : {}),
  };
}

export function errorAnswer(status: number, message: string, headers: Record<string, string> = {}): ModelAnswer {
  return {
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ error: { message, type: 'scripted_error' } }),
  };
}

/** The HTTP answer a step describes. */
export function answerOf(step: ModelStep, model: string, counter: number): ModelAnswer {
  if ('raw' in step)
    return { status: step.status ?? 200, headers: { 'content-type': step.contentType ?? 'application/json' }, body: step.raw };
  if ('httpError' in step) {
    const retryAfter: Record<string, string> =
      step.retryAfterSeconds === undefined ? {} : { 'retry-after': String(step.retryAfterSeconds) };
    return errorAnswer(step.httpError, step.message ?? `scripted HTTP ${step.httpError}`, { ...retryAfter, ...step.headers });
  }
  const toolCalls =
    'toolCalls' in step
      ? step.toolCalls.map((call) => ({
          name: call.name,
          arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
          ...(call.id ? { id: call.id } : {}),
        }))
      : undefined;
  return {
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: completionBody(model, counter, { content: step.text ?? null, ...(toolCalls ? { toolCalls } : {}), usage: step.usage }),
  };
}
