import type { Client } from '@temporalio/client';
import { walkSubtree, type WalkedSession } from '../client/access/tree-walk.js';
import { listedStatus } from '../client/session-list.js';
import type { SessionSnapshot } from '../shared/session.js';

/** A member of a tree as the console shows it: its place, its status, what it waits for, and what it spent. */
export interface ConsoleMember {
  session_id: string;
  title: string;
  status: string;
  mode: 'async' | 'sync' | null;
  waiting_for: string | null;
  /** Its own model calls' tokens and cost (null: it reported none, or it could not be asked). */
  usage: { total_tokens: number; cost_usd: number; unpriced_calls: number; calls: number } | null;
  children: ConsoleMember[];
}

/** What a session waits for, in a few words (null when it waits for nothing: it works, or it has ended). */
export function waitingFor(snapshot: SessionSnapshot): string | null {
  const own = snapshot.pending_questions.find((set) => set.session_id === snapshot.session_id);
  if (own)
    return own.approval ? `your approval of ${own.approval.tool_name}` : `your answer: ${own.questions.map((q) => q.question).join(' ')}`;
  if (snapshot.waiting) return `a timer until ${snapshot.waiting.until}${snapshot.waiting.reason ? ` (${snapshot.waiting.reason})` : ''}`;
  const running = snapshot.children.filter((child) => child.status === 'running' || child.status === 'waiting_for_user');
  if (snapshot.status === 'idle' && running.length > 0) return `sub-agents: ${running.map((child) => child.title).join(', ')}`;
  if (snapshot.status === 'idle') return 'a message';
  return null;
}

/**
 * The tree of `rootId` with what each member waits for: one visibility listing, and each member's snapshot from
 * `snapshotOf` (the console's cache, which asks only members that changed). A member that cannot answer shows what
 * visibility or its parent says of it.
 */
export async function treeMembers(
  client: Client,
  rootId: string,
  snapshotOf: (sessionId: string) => Promise<SessionSnapshot | undefined>,
): Promise<ConsoleMember> {
  const snapshots = new Map<string, SessionSnapshot>();
  const remember = async (sessionId: string) => {
    const snapshot = await snapshotOf(sessionId);
    if (snapshot) snapshots.set(sessionId, snapshot);
    return snapshot;
  };
  const { members } = await walkSubtree(client, rootId, rootId, remember);
  const nodes = new Map<string, ConsoleMember>();
  for (const member of members) nodes.set(member.session_id, memberOf(member, snapshots.get(member.session_id)));
  for (const member of members) {
    if (member.parent_session_id) nodes.get(member.parent_session_id)?.children.push(nodes.get(member.session_id)!);
  }
  return nodes.get(rootId)!;
}

function memberOf(member: WalkedSession, snapshot: SessionSnapshot | undefined): ConsoleMember {
  const spent = snapshot?.usage?.session;
  return {
    session_id: member.session_id,
    title: snapshot?.title ?? member.title,
    status:
      snapshot?.status ?? member.recorded_status ?? (member.listed ? listedStatus(member.listed.execution_status, undefined) : 'unknown'),
    mode: snapshot?.mode ?? null,
    waiting_for: snapshot ? waitingFor(snapshot) : null,
    usage: spent
      ? { total_tokens: spent.total_tokens, cost_usd: spent.cost_usd, unpriced_calls: spent.unpriced_calls, calls: spent.calls }
      : null,
    children: [],
  };
}
