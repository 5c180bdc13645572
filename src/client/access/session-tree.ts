import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { snapshotQuery, userMessageSignal } from '../../shared/messages.js';
import { closedStatuses, type SessionSnapshot, type SessionStatus } from '../../shared/session.js';

import type { ToolReply } from '../../shared/tool-reply.js';
import { listedChildren, listSubtree, listTree, type ListedSession } from './tree-listing.js';
import { walkSubtree, type WalkedSubtree } from './tree-walk.js';
import { rootSessionIdKey, statusKey } from '../../shared/search-attributes.js';
import { listedStatus } from '../session-list.js';
import { boundedQuery } from './query-failures.js';
import { cancelRequestedAt } from './cancel-request-time.js';

type TreeReply<T> = ToolReply<T>;

export interface SubAgentListing {
  sub_session_id: string;
  title: string;
  status: SessionStatus;
  created_at: string;
  updated_at: string;
}

export interface StoppedSessions {
  stopped_sessions: { sub_session_id: string; title: string }[];
  total_stopped: number;
}

const activeStatuses: readonly SessionStatus[] = ['running', 'idle', 'waiting_for_user'];

export interface SessionTreeNode {
  session_id: string;
  title: string;
  status: SessionStatus;
  mode: 'async' | 'sync' | null;
  children: SessionTreeNode[];
}

/**
 * Reads and acts on the sessions of a tree through queries, signals and cancellation. Used by the sub-agent tools (as
 * activities) and by the client SDK. `heartbeat` is called while a stop waits.
 */
export function createSessionTree(client: Client, heartbeat: () => void = () => undefined) {
  async function snapshotOf(sessionId: string): Promise<SessionSnapshot | undefined> {
    try {
      return await boundedQuery(client, sessionId, () => client.workflow.getHandle(sessionId).query(snapshotQuery));
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    }
  }

  /**
   * The target's snapshot when the caller may read it: a sub-agent anywhere in the caller's tree (its root's
   * descendants, the caller's siblings and their sub-agents too), as the tool specification's permission check says
   * ("root_server_session_id must match"), but not the caller itself nor the root, which is no sub-agent.
   */
  async function inSameTree(callerId: string, targetId: string): Promise<TreeReply<SessionSnapshot>> {
    if (callerId === targetId) return { ok: false, error: 'A session cannot target itself; give the id of another sub-agent.' };
    const target = await snapshotOf(targetId);
    if (target?.ancestor_session_ids.includes(callerId)) return { ok: true, result: target };
    const caller = target && target.parent_session_id !== null ? await snapshotOf(callerId) : undefined;
    if (!target || !caller || caller.root_session_id !== target.root_session_id) {
      return { ok: false, error: `Session ${targetId} is not a sub-agent in this session's tree. Use listSubAgent to see them.` };
    }
    return { ok: true, result: target };
  }

  /** The target's snapshot when the caller may act on it (a descendant); a refusal otherwise. */
  async function descendant(callerId: string, targetId: string): Promise<TreeReply<SessionSnapshot>> {
    if (callerId === targetId) return { ok: false, error: 'A session cannot target itself; give the id of one of its sub-agents.' };
    const target = await snapshotOf(targetId);
    if (!target || !target.ancestor_session_ids.includes(callerId)) {
      return {
        ok: false,
        error: `Session ${targetId} is not a sub-agent of this session (at any depth); this tool reaches only those. Use listSubAgent to see the tree.`,
      };
    }
    return { ok: true, result: target };
  }

  /**
   * How each member of a stopped subtree closed. With visibility (`rootId` given), one more listing answers for most,
   * and adds sessions it had not indexed before the stop (not those `listedBefore` names: a session it listed closed
   * had ended before this stop); a member it still shows running is described directly.
   */
  async function closingsOf(
    members: { session_id: string; title: string }[],
    rootId: string | undefined,
    targetId: string,
    listedBefore: readonly ListedSession[] = [],
  ) {
    const after = rootId
      ? new Map((await listSubtree(client, rootId, targetId))?.map((session) => [session.session_id, session]))
      : undefined;
    const known = new Set([...members, ...listedBefore].map((member) => member.session_id));
    const late = [...(after?.values() ?? [])].filter(
      (session) => !known.has(session.session_id) && session.execution_status === 'CANCELLED',
    );
    return Promise.all(
      [...members, ...late].map(async (member) => {
        const seen = after?.get(member.session_id);
        if (seen && seen.execution_status !== 'RUNNING')
          return { member, status: seen.execution_status, closeTime: seen.close_time ?? Infinity };
        const description = await client.workflow.getHandle(member.session_id).describe();
        return { member, status: description.status.name, closeTime: description.closeTime?.getTime() ?? Infinity };
      }),
    );
  }

  /** Runs `work`, heartbeating meanwhile: a walk may wait up to a query's deadline for a member that cannot answer. */
  async function whileBeating<T>(work: () => Promise<T>): Promise<T> {
    const beating = setInterval(heartbeat, 2_000);
    try {
      return await work();
    } finally {
      clearInterval(beating);
    }
  }

  /** Cancels sessions and waits until each has closed; each stops its own sub-agents first. */
  async function cancelAndWait(sessionIds: string[]): Promise<void> {
    const beating = setInterval(heartbeat, 2_000);
    try {
      await Promise.all(
        sessionIds.map(async (sessionId) => {
          const handle = client.workflow.getHandle(sessionId);
          try {
            await handle.cancel();
          } catch (error) {
            // Closed meanwhile: nothing to stop.
            if (error instanceof WorkflowNotFoundError) return;
            throw error;
          }
          await handle.result().catch(() => undefined);
        }),
      );
    } finally {
      clearInterval(beating);
    }
  }

  /**
   * The members that closed as cancelled, in the order they closed; with `since` (the server's time of this stop's
   * cancel request), only those that closed after it: a session an earlier call stopped is not this call's.
   */
  function stoppedIn(closed: Awaited<ReturnType<typeof closingsOf>>, since?: number): StoppedSessions {
    const stopped = closed
      .filter((entry) => entry.status === 'CANCELLED' && (since === undefined || entry.closeTime >= since))
      .sort((a, b) => a.closeTime - b.closeTime)
      .map((entry) => ({ sub_session_id: entry.member.session_id, title: entry.member.title }));
    return { stopped_sessions: stopped, total_stopped: stopped.length };
  }

  /**
   * Stops what still runs below a session that has closed without stopping it: a session terminated (or timed out)
   * does not reach sub-agents started to outlive its run. Each running sub-agent whose parent has closed is cancelled,
   * and stops its own subtree, leaves first.
   */
  async function stopBelowClosed(targetId: string, closedAs: string, rootId: string | undefined): Promise<TreeReply<StoppedSessions>> {
    const walked = await whileBeating(() => walkSubtree(client, rootId, targetId, snapshotOf));
    const below = walked.members.slice(1);
    const runs = await Promise.all(
      below.map((member) => (member.listed && member.listed.execution_status !== 'RUNNING' ? false : isRunning(member.session_id))),
    );
    const members = below.filter((_, index) => runs[index]);
    if (members.length === 0)
      return { ok: false, error: `Session ${targetId} has already ended (${closedAs}), and nothing below it is running.` };
    const running = new Set(members.map((member) => member.session_id));
    const orphans = members.filter((member) => !member.parent_session_id || !running.has(member.parent_session_id));
    await cancelAndWait(orphans.map((member) => member.session_id));
    return { ok: true, result: stoppedIn(await closingsOf(members, walked.listing ? rootId : undefined, targetId, listedIn(walked))) };
  }

  async function isRunning(sessionId: string): Promise<boolean> {
    try {
      return (await client.workflow.getHandle(sessionId).describe()).status.name === 'RUNNING';
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return false;
      throw error;
    }
  }

  /** The members visibility listed before a stop: one it listed closed had ended before the stop. */
  function listedIn(walked: WalkedSubtree): ListedSession[] {
    return walked.members.flatMap((member) => (member.listed ? [member.listed] : []));
  }

  /** Every session below `rootId`, walking down through the children each one records. */
  async function subtree(rootId: string, includeClosed: boolean): Promise<SessionSnapshot[]> {
    const found: SessionSnapshot[] = [];
    let frontier = [rootId];
    while (frontier.length > 0) {
      const snapshots = await Promise.all(frontier.map(snapshotOf));
      frontier = [];
      for (const snapshot of snapshots) {
        if (!snapshot) continue;
        for (const child of snapshot.children) {
          if (includeClosed || !closedStatuses.includes(child.status)) frontier.push(child.sub_session_id);
        }
        if (snapshot.session_id !== rootId) found.push(snapshot);
      }
    }
    return found;
  }

  async function treeOf(sessionId: string, listing?: ReadonlyMap<string, ListedSession[]>): Promise<SessionTreeNode | undefined> {
    const snapshot = await snapshotOf(sessionId);
    if (!snapshot) return undefined;
    // The children it records, and those visibility lists under it: either may miss one (see walkSubtree).
    const byParent = listing ?? listedChildren((await listTree(client, snapshot.root_session_id)) ?? new Map());
    const childIds = new Set([
      ...snapshot.children.map((child) => child.sub_session_id),
      ...(byParent.get(sessionId) ?? []).map((child) => child.session_id),
    ]);
    const children = await Promise.all([...childIds].map((childId) => treeOf(childId, byParent)));
    return {
      session_id: snapshot.session_id,
      title: snapshot.title,
      status: snapshot.status,
      mode: snapshot.mode,
      children: children.filter((child): child is SessionTreeNode => child !== undefined),
    };
  }

  return {
    /** The session and everything below it, closed sessions included. */
    tree: (sessionId: string) => treeOf(sessionId),

    /** The active sub-agents of the session's whole tree, every depth, the session's siblings too (not itself). */
    async listSubAgents(sessionId: string): Promise<SubAgentListing[]> {
      const rootId = (await snapshotOf(sessionId))?.root_session_id ?? sessionId;
      return (await subtree(rootId, false))
        .filter((snapshot) => snapshot.session_id !== sessionId && activeStatuses.includes(snapshot.status))
        .map((snapshot) => ({
          sub_session_id: snapshot.session_id,
          title: snapshot.title,
          status: snapshot.status,
          created_at: snapshot.created_at,
          updated_at: snapshot.updated_at,
        }));
    },

    async getSubAgentMessage(callerId: string, targetId: string): Promise<TreeReply<Record<string, unknown>>> {
      const checked = await inSameTree(callerId, targetId);
      if (!checked.ok) return checked;
      const target = checked.result;
      const transcript = target.last_message;
      return {
        ok: true,
        result: {
          sub_session_id: target.session_id,
          sub_session_title: target.title,
          sub_session_status: target.status,
          message_id: transcript?.id ?? null,
          role: transcript?.role ?? null,
          content: transcript?.content ?? '',
          created_at: transcript?.created_at ?? null,
        },
      };
    },

    async sendMessageToSubAgent(callerId: string, targetId: string, message: string, messageId: string): Promise<TreeReply<string>> {
      const checked = await descendant(callerId, targetId);
      if (!checked.ok) return checked;
      if (closedStatuses.includes(checked.result.status)) {
        return { ok: false, error: `Sub-agent ${targetId} has ended (${checked.result.status}); it takes no more messages.` };
      }
      await client.workflow.getHandle(targetId).signal(userMessageSignal, { id: messageId, content: message });
      return { ok: true, result: `Message delivered to sub-agent "${checked.result.title}" (${targetId}).` };
    },

    /** Stops a session and its subtree by cancellation (each session stops its children first) and reports the order. */
    async stopSessionTree(callerId: string | null, targetId: string): Promise<TreeReply<StoppedSessions>> {
      let target: SessionSnapshot | undefined;
      if (callerId) {
        const checked = await descendant(callerId, targetId);
        if (!checked.ok) return checked;
        target = checked.result;
      } else {
        const description = await client.workflow
          .getHandle(targetId)
          .describe()
          .catch((error: unknown) => {
            if (error instanceof WorkflowNotFoundError) return undefined;
            throw error;
          });
        if (!description) return { ok: false, error: `No session with id ${targetId}.` };
        if (description.status.name !== 'RUNNING') {
          return stopBelowClosed(
            targetId,
            listedStatus(description.status.name, description.typedSearchAttributes.get(statusKey)),
            description.typedSearchAttributes.get(rootSessionIdKey),
          );
        }
        target = await snapshotOf(targetId);
        if (!target) return { ok: false, error: `No session with id ${targetId}.` };
      }
      if (closedStatuses.includes(target.status)) return { ok: false, error: `Session ${targetId} has already ended (${target.status}).` };
      // Visibility lists the tree in one call, and each member's own record adds what visibility missed (walkSubtree).
      const walked = await whileBeating(() => walkSubtree(client, target.root_session_id, targetId, snapshotOf));
      const members = walked.members
        .filter((member) =>
          member.listed
            ? member.listed.execution_status === 'RUNNING'
            : member.recorded_status === undefined || !closedStatuses.includes(member.recorded_status),
        )
        .map(({ session_id, title }) => ({ session_id, title }));
      await cancelAndWait([targetId]);
      const closed = await closingsOf(members, walked.listing ? target.root_session_id : undefined, targetId, listedIn(walked));
      return { ok: true, result: stoppedIn(closed, await cancelRequestedAt(client, targetId)) };
    },
  };
}
