import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { snapshotQuery, userMessageSignal } from '../../shared/messages.js';
import { closedStatuses, type SessionSnapshot } from '../../shared/session.js';
import type { ToolReply } from '../../shared/tool-reply.js';
import { leadAgentName, type StructuredAgentMessage } from '../../shared/tools/claurst-messages.js';
import { boundedQuery } from './query-failures.js';

/** A session of the tree as SendMessage addresses it: by the name its parent's Agent call gave it, or its id. */
interface Member {
  session_id: string;
  name: string | undefined;
  title: string;
  running: boolean;
}

export interface AgentDelivery {
  from: string;
  recipients: string[];
}

/**
 * claurst SendMessage's delivery: finds recipients by name anywhere in the caller's tree (or `*`: every running session
 * of it but the caller) and signals each the message as a user message, naming the sender so it can answer.
 */
export function createAgentMailbox(client: Client) {
  async function snapshotOf(sessionId: string): Promise<SessionSnapshot | undefined> {
    try {
      return await boundedQuery(client, sessionId, () => client.workflow.getHandle(sessionId).query(snapshotQuery));
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    }
  }

  /** The tree from its root down, through the children each session records (and the names it gave them). */
  async function membersOf(rootId: string): Promise<Member[]> {
    const root = await snapshotOf(rootId);
    if (!root) return [];
    const members: Member[] = [
      { session_id: rootId, name: leadAgentName, title: root.title, running: !closedStatuses.includes(root.status) },
    ];
    let frontier = [root];
    while (frontier.length > 0) {
      const next: SessionSnapshot[] = [];
      for (const snapshot of frontier) {
        for (const child of snapshot.children) {
          const running = !closedStatuses.includes(child.status);
          members.push({ session_id: child.sub_session_id, name: child.name, title: child.title, running });
        }
        const open = snapshot.children.filter((child) => !closedStatuses.includes(child.status));
        next.push(...(await Promise.all(open.map((child) => snapshotOf(child.sub_session_id)))).filter((s) => s !== undefined));
      }
      frontier = next;
    }
    return members;
  }

  const label = (member: Member) => member.name ?? member.session_id;

  return {
    async deliverAgentMessage(
      callerId: string,
      to: string,
      message: string | StructuredAgentMessage,
      summary: string | undefined,
      messageId: string,
    ): Promise<ToolReply<AgentDelivery>> {
      const caller = await snapshotOf(callerId);
      const members = await membersOf(caller?.root_session_id ?? callerId);
      const sender = members.find((member) => member.session_id === callerId);
      const from = sender ? label(sender) : callerId;
      const others = members.filter((member) => member.session_id !== callerId);
      const named = others.filter((member) => member.name === to || member.session_id === to);
      const recipients = to === '*' ? others.filter((member) => member.running) : named;
      const running = others.filter((member) => member.running).map(label);
      if (to !== '*' && named.length === 0)
        return { ok: false, error: `No agent named "${to}" in this session tree. Running agents: ${running.join(', ') || 'none'}.` };
      if (named.length > 1)
        return {
          ok: false,
          error: `More than one agent of this tree is named "${to}"; address one by its id: ${named.map((m) => m.session_id).join(', ')}.`,
        };
      if (to !== '*' && !named[0]!.running)
        return { ok: false, error: `Agent "${to}" has ended; it takes no more messages. Running agents: ${running.join(', ') || 'none'}.` };
      if (recipients.length === 0) return { ok: false, error: 'No other agent of this session tree is running: nobody to broadcast to.' };
      const content = render(from, message, summary);
      await Promise.all(
        recipients.map((member) =>
          client.workflow.getHandle(member.session_id).signal(userMessageSignal, { id: `${messageId}:${member.session_id}`, content }),
        ),
      );
      return { ok: true, result: { from, recipients: recipients.map(label) } };
    },
  };
}

/** The message as its recipient's model reads it: who sent it, how to answer, and a structured message spelled out. */
function render(from: string, message: string | StructuredAgentMessage, summary: string | undefined): string {
  const about = summary ? ` (${summary})` : '';
  if (typeof message === 'string')
    return `[Message from agent "${from}"${about}]\n${message}\n(Answer with SendMessage to "${from}" if it needs a reply.)`;
  const json = JSON.stringify(message);
  if (message.type === 'shutdown_request')
    return (
      `[shutdown_request from agent "${from}"${about}] ${json}\nFinish or hand over what you are doing, then answer with ` +
      `SendMessage to "${from}": message {"type":"shutdown_response","status":"ok"} to shut down (your turn ends with that ` +
      `call), or {"type":"shutdown_response","status":"error","message":"why"} to keep working.`
    );
  if (message.type === 'shutdown_response')
    return (
      `[shutdown_response from agent "${from}"${about}] ${json}\n` +
      (message.status === 'ok' ? `Agent "${from}" agreed and ends its turn (a sub-agent then finishes).` : `Agent "${from}" keeps working.`)
    );
  return `[plan_approval_response from agent "${from}"${about}] ${json}`;
}
