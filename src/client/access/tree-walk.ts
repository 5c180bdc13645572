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
 * Every member visibility lists below the target is asked at once; only members that a record names and visibility
 * missed are asked in a later round (a tree of 1+10+100 is one round of 111 snapshots, not three levels in turn).
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
  const found = new Map<string, WalkedSession>();
  let round: WalkedSession[] = [];
  const add = (member: WalkedSession) => {
    found.set(member.session_id, member);
    round.push(member);
    for (const child of byParent.get(member.session_id) ?? []) {
      if (found.has(child.session_id)) continue;
      add({
        session_id: child.session_id,
        parent_session_id: member.session_id,
        title: child.title,
        listed: child,
        recorded_status: undefined,
      });
    }
  };
  add({
    session_id: targetId,
    parent_session_id: target?.parent_session_id ?? null,
    title: target?.title ?? targetId,
    listed: target,
    recorded_status: undefined,
  });
  while (round.length > 0) {
    const asked = round;
    round = [];
    const answers = await Promise.all(
      asked.map((member) =>
        member.listed?.execution_status === 'CANCELLED' ? undefined : snapshotOf(member.session_id).catch(() => undefined),
      ),
    );
    asked.forEach((member, index) => {
      const snapshot = answers[index];
      if (!snapshot) return;
      member.title = snapshot.title;
      for (const child of snapshot.children ?? []) {
        const known = found.get(child.sub_session_id);
        if (known) {
          if (known.parent_session_id === member.session_id) known.recorded_status = child.status;
          continue;
        }
        const listed = listing?.get(child.sub_session_id);
        add({
          session_id: child.sub_session_id,
          parent_session_id: member.session_id,
          title: listed?.title ?? child.title,
          listed,
          recorded_status: child.status,
        });
      }
    });
  }
  return { members: levelByLevel(found, targetId), listing };
}

/** The target first, then each level below it, each member's children in the order they were found. */
function levelByLevel(found: Map<string, WalkedSession>, targetId: string): WalkedSession[] {
  const childrenOf = new Map<string, WalkedSession[]>();
  for (const member of found.values()) {
    if (member.session_id === targetId || member.parent_session_id === null) continue;
    (childrenOf.get(member.parent_session_id) ?? childrenOf.set(member.parent_session_id, []).get(member.parent_session_id)!).push(member);
  }
  const members = [found.get(targetId)!];
  for (let index = 0; index < members.length; index += 1) members.push(...(childrenOf.get(members[index]!.session_id) ?? []));
  return members;
}
