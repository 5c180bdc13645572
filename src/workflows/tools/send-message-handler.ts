import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type { ToolArgs } from '../../shared/tools/define-tool.js';
import type { sendMessage } from '../../shared/tools/claurst-messages.js';
import type { ToolContext } from './tool-context.js';
import { resultOf } from './reply.js';
import { ToolError } from './tool-error.js';

const mailbox = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 5 } });

/**
 * claurst `SendMessage` between the agents of one session tree. A `shutdown_response` with status "ok" ends the
 * responder's turn after this round, as stopConversation does: a sub-agent then finishes, and its parent is told.
 */
export async function sendAgentMessage(args: ToolArgs<typeof sendMessage>, context: ToolContext): Promise<string> {
  if (/^uds:/i.test(args.to))
    throw new ToolError(
      '"uds:" addresses (Unix domain sockets) are not supported by Arbor: message an agent of this tree by name, or "*".',
    );
  if (/^bridge:/i.test(args.to))
    throw new ToolError(
      '"bridge:" addresses (cross-machine bridges) are not supported by Arbor: message an agent of this tree by name, or "*".',
    );
  const delivery = resultOf(
    await mailbox.deliverAgentMessage(
      context.state.identity.session_id,
      args.to,
      args.message,
      args.summary,
      `agent-message:${context.stepKey}`,
    ),
  );
  const shutsDown = typeof args.message !== 'string' && args.message.type === 'shutdown_response' && args.message.status === 'ok';
  if (shutsDown) context.state.endTurnRequested = true;
  return JSON.stringify({
    success: true,
    message: `Message delivered to ${delivery.recipients.map((name) => `"${name}"`).join(', ')}.${shutsDown ? ' Your turn ends here (shutdown).' : ''}`,
    recipients: delivery.recipients,
  });
}
