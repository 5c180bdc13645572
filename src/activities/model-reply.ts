import { ApplicationFailure } from '@temporalio/common';
import { modelAnswerTooLarge, modelTemporarilyUnavailable, type ModelReply } from '../shared/model.js';
import type { ToolCall } from '../shared/session.js';
import type { ModelUsage } from '../shared/usage.js';

/**
 * The largest model answer a session takes, measured as the JSON the activity returns. Temporal refuses payloads
 * over 2 MB, and the answer also travels in the next model call's input together with the tool results, so one
 * answer may use at most half of that.
 */
export const maxModelAnswerBytes = 1024 * 1024;

/**
 * Tool names and call ids longer than this are cut. No real tool name is longer (OpenAI allows 64 characters), and a
 * huge one would otherwise be copied into every tool error, transcript entry and event that names the call.
 */
export const maxToolCallNameLength = 200;

/**
 * Reads the body an OpenAI-compatible endpoint answered with into a ModelReply, whatever shapes it holds: a body
 * that is not a chat completion is a retryable failure, tool calls whose fields have the wrong types are made
 * strings (the tool then answers the model with an error), a call without an id gets `<callIdPrefix>_<index>`, and an
 * answer larger than `maxModelAnswerBytes` is refused without retrying (asking again would most likely bring the same
 * answer, at the same cost).
 */
export function readModelReply(completion: unknown, callIdPrefix = 'call'): ModelReply {
  const choices = isRecord(completion) ? completion.choices : undefined;
  if (!Array.isArray(choices)) {
    throw ApplicationFailure.create({
      message: `the model endpoint answered with something that is not a chat completion: ${preview(completion)}`,
      type: modelTemporarilyUnavailable,
      nonRetryable: false,
    });
  }
  const first: unknown = choices[0];
  const message = isRecord(first) ? first.message : undefined;
  if (!isRecord(message)) throw new Error('the model endpoint answered with no choices');
  const usage = readUsage(isRecord(completion) ? completion : {});
  const reply: ModelReply = {
    content: contentText(message.content),
    tool_calls: toolCalls(message.tool_calls, callIdPrefix),
    ...(usage ? { usage } : {}),
  };
  const bytes = Buffer.byteLength(JSON.stringify(reply), 'utf8');
  if (bytes > maxModelAnswerBytes) {
    throw ApplicationFailure.create({
      message:
        `the model's answer has ${bytes.toLocaleString('en-US')} bytes, more than the ${maxModelAnswerBytes.toLocaleString('en-US')} ` +
        "one answer may have (Temporal's payload limit is 2 MB); ask for a shorter answer or for the work in parts",
      type: modelAnswerTooLarge,
      nonRetryable: true,
      details: [{ bytes, limit: maxModelAnswerBytes }],
    });
  }
  return reply;
}

/** More tokens than any call uses: a count above it (or not a whole number) is a provider's mistake, read as unknown. */
export const maxReportedTokens = 100_000_000;

/**
 * The completion's `usage` (and `model`), when it has one whose counts can be believed: counts that are not whole
 * numbers from 0 to `maxReportedTokens` are left out (a call without readable prompt and completion counts has no
 * usage), and cached and reasoning tokens are at most the prompt and completion tokens they are part of.
 */
export function readUsage(completion: Record<string, unknown>): ModelUsage | undefined {
  const usage = completion.usage;
  if (!isRecord(usage)) return undefined;
  const prompt = tokenCount(usage.prompt_tokens);
  const completionTokens = tokenCount(usage.completion_tokens);
  if (prompt === undefined && completionTokens === undefined) return undefined;
  const cached = tokenCount(isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details.cached_tokens : undefined);
  const reasoning = tokenCount(isRecord(usage.completion_tokens_details) ? usage.completion_tokens_details.reasoning_tokens : undefined);
  const model = typeof completion.model === 'string' && completion.model.trim() !== '' ? completion.model.trim().slice(0, 200) : undefined;
  return {
    prompt_tokens: prompt ?? 0,
    completion_tokens: completionTokens ?? 0,
    ...(cached !== undefined && cached > 0 ? { cached_tokens: Math.min(cached, prompt ?? 0) } : {}),
    ...(reasoning !== undefined && reasoning > 0 ? { reasoning_tokens: Math.min(reasoning, completionTokens ?? 0) } : {}),
    ...(model !== undefined ? { model } : {}),
  };
}

function tokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= maxReportedTokens ? value : undefined;
}

function contentText(content: unknown): string | null {
  if (content === null || content === undefined) return null;
  if (typeof content === 'string') return content;
  // Some servers answer with content parts; their text is the answer.
  if (Array.isArray(content)) return content.map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : '')).join('');
  return JSON.stringify(content);
}

function toolCalls(calls: unknown, idPrefix: string): ToolCall[] {
  if (!Array.isArray(calls)) return [];
  return calls.flatMap((call, index): ToolCall[] => {
    if (!isRecord(call) || (call.type !== undefined && call.type !== 'function')) return [];
    const fn = isRecord(call.function) ? call.function : {};
    const args = fn.arguments;
    return [
      {
        id: cut(typeof call.id === 'string' && call.id !== '' ? call.id : `${idPrefix}_${index}`),
        // A name that is not text names no tool, whatever it holds (["todoWrite"] is not todoWrite).
        name: cut(typeof fn.name === 'string' ? fn.name : (JSON.stringify(fn.name) ?? '')),
        // Some servers send the arguments as a JSON object rather than as text; anything else is left for the tool to refuse.
        arguments: typeof args === 'string' ? args : args === undefined || args === null ? '' : JSON.stringify(args),
      },
    ];
  });
}

function cut(text: string): string {
  return text.length <= maxToolCallNameLength ? text : `${text.slice(0, maxToolCallNameLength)}…`;
}

function preview(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length <= 200 ? text : `${text.slice(0, 200)}…`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
