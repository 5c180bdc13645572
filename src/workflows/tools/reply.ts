import type { ToolReply } from '../../shared/tool-reply.js';
import { ToolError } from './tool-error.js';

/** The model-facing text of an activity's reply: the result (JSON unless already text), or a tool error. */
export function replyText<T>(answer: ToolReply<T>): string {
  if (!answer.ok) throw new ToolError(answer.error);
  return typeof answer.result === 'string' ? answer.result : JSON.stringify(answer.result);
}
