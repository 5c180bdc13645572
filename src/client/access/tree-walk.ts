import type { Client } from '@temporalio/client';
import type { SessionSnapshot, SessionStatus } from '../../shared/session.js';
import { listedChildren, listTree, type ListedSession } from './tree-listing.js';

/** A member of a walked subtree: where it sits, and what visibility says of it when it lists it. */
export interface WalkedSession {
  session_id: string;
  parent_session_id: string | null;
  /** The session's own title when it answered, else visibility's. */
  title: string;
  /** The member as visibility lists it; undefined when visibility missed it (not indexed yet, or never). */
  listed: ListedSession | undefined;
  /** The member's status as its parent records it, when its parent answered and records it. */
  recorded_status: SessionStatus | undefined;
}

export interface WalkedSubtree {
  /** The target first, then each level below it. */
  members: WalkedSession[];
  /** Visibility's listing of the whole tree, or undefined when visibility cannot list it (no search attributes). */
  listing: Map<string, ListedSession> | undefined;
}

/**
 * The sessions at and below `targetId`, from visibility's listing of the tree of `rootId` joined with each member's own
 * record of its children (its snapshot). Visibility lags, and a store can fail to index a member for ever (PostgreSQL
 * visibility rejecting a value), so neither source alone is trusted: a member found by either is asked for its
 * children, and those found by either are added with their subtrees. A member that cannot answer (no worker answers,
 * a history that no longer replays) contributes the children visibility lists for it. One that visibility lists as
 * cancelled is not asked: a stop cancels a session's children before the session itself closes.
 */
export async function walkSubtree(
  client: Client,
  rootId: string | undefined,
  targetId: string,
  snapshotOf: (sessionId: string) => Promise<SessionSnapshot | undefined>,
): Promise<WalkedSubtree> {
  const listing = rootId ? await listTree(client, rootId) : undefined;
  const byParent = listing ? listedChildren(listing) : new Map<string, ListedSession[]>();
  const target = listing?.get(targetId);
  const members: WalkedSession[] = [
    {
      session_id: targetId,
      parent_session_id: target?.parent_session_id ?? null,
      title: target?.title ?? targetId,
      listed: target,
      recorded_status: undefined,
    },
  ];
  const seen = new Set([targetId]);
  let frontier = [...members];
  while (frontier.length > 0) {
    const answers = await Promise.all(
      frontier.map((member) =>
        member.listed?.execution_status === 'CANCELLED' ? undefined : snapshotOf(member.session_id).catch(() => undefined),
      ),
    );
    const next: WalkedSession[] = [];
    frontier.forEach((member, index) => {
      const snapshot = answers[index];
      if (snapshot) member.title = snapshot.title;
      const recorded = (snapshot?.children ?? []).map((child) => ({ id: child.sub_session_id, title: child.title, status: child.status }));
      const visible = (byParent.get(member.session_id) ?? []).map((child) => ({
        id: child.session_id,
        title: child.title,
        status: undefined,
      }));
      for (const child of [...recorded, ...visible]) {
        if (seen.has(child.id)) continue;
        seen.add(child.id);
        const listed = listing?.get(child.id);
        next.push({
          session_id: child.id,
          parent_session_id: member.session_id,
          title: listed?.title ?? child.title,
          listed,
          recorded_status: child.status,
        });
      }
    });
    members.push(...next);
    frontier = next;
  }
  return { members, listing };
}
