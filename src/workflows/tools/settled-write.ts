import { ActivityFailure, ApplicationFailure, isCancellation } from '@temporalio/workflow';
import type { ToolReply } from '../../shared/tool-reply.js';
import { hasChange } from '../session-changes.js';
import { ToolError } from './tool-error.js';

/**
 * A write to another workflow (an owner's memories, the tree's task board) whose reply tells the truth. When the
 * write's activity fails for good (its attempts timed out under load, say), one of them may still have been applied,
 * so the store is asked to settle the write: its reply if it was applied, else a refusal that also keeps any copy
 * still on its way from being applied later. Only if the store cannot be reached either does the model read that
 * the outcome is unknown.
 */
export async function settledWrite(
  write: () => Promise<ToolReply<unknown>>,
  settle: (reason: string) => Promise<ToolReply<unknown>>,
): Promise<ToolReply<unknown>> {
  try {
    return await write();
  } catch (error) {
    if (isCancellation(error) || !(error instanceof ActivityFailure) || isRefusal(error)) throw error;
    if (!hasChange('store-writes-settled-after-failure')) throw error;
    const reason = describeFailure(error);
    try {
      return await settle(reason);
    } catch (settleError) {
      if (isCancellation(settleError)) throw settleError;
      throw new ToolError(
        `It is not known whether this write was applied (${reason}); asking again failed: ${describeFailure(settleError)}`,
      );
    }
  }
}

/** A failure the activity itself declared final (the root keeping the board has ended): nothing was applied. */
function isRefusal(error: ActivityFailure): boolean {
  return error.cause instanceof ApplicationFailure && error.cause.nonRetryable === true;
}

function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message;
}
