import type { ToolReply } from '../../shared/tool-reply.js';
import { ToolError } from './tool-error.js';

/** The result of a reply, or its refusal thrown as a tool error, which the model reads. */
export function resultOf<T>(reply: ToolReply<T>): T {
  if (!reply.ok) throw new ToolError(reply.error);
  return reply.result;
}

/** The model-facing text of an activity's reply: the result (JSON unless already text), or a tool error. */
export function replyText<T>(answer: ToolReply<T>): string {
  const result = resultOf(answer);
  return typeof result === 'string' ? result : JSON.stringify(result);
}
