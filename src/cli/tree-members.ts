import type { ArborClient } from '../client/arbor-client.js';
import { listedStatus, type ListedSessionStatus } from '../client/session-list.js';
import type { SessionSnapshot } from '../shared/session.js';
import { listedChildren, listTree, type ListedSession } from '../client/access/tree-listing.js';

/** A session of a tree as its own snapshot tells it (not its parent's record), with its depth and its children. */
export interface TreeMember {
  snapshot: SessionSnapshot;
  depth: number;
  children: TreeMember[];
  /**
   * How the member's workflow ended, as `arbor list` says it (Temporal's execution status, read with the snapshot), or
   * undefined while it runs. A workflow closed by someone else (`temporal workflow terminate`, a timeout) answers its
   * snapshot query with the status it had then, `idle` or `waiting until …`: this is what it is.
   */
  ended?: ListedSessionStatus;
}

/**
 * Walks the tree below `sessionId` asking each member for its own live snapshot, and Temporal whether it still runs.
 * Each member's children are those it records joined with those visibility lists under it: either may miss one.
 */
export async function readTreeMembers(
  client: ArborClient,
  sessionId: string,
  depth = 0,
  known?: SessionSnapshot,
  listing?: ReadonlyMap<string, ListedSession[]>,
): Promise<TreeMember> {
  const [snapshot, execution] = await Promise.all([
    known ?? client.session(sessionId).snapshot(),
    client.temporal.workflow
      .getHandle(sessionId)
      .describe()
      .then((description) => description.status.name),
  ]);
  const byParent = listing ?? listedChildren((await listTree(client.temporal, snapshot.root_session_id)) ?? new Map());
  const childIds = new Set([
    ...snapshot.children.map((child) => child.sub_session_id),
    ...(byParent.get(sessionId) ?? []).map((child) => child.session_id),
  ]);
  const children = await Promise.all([...childIds].map((childId) => readTreeMembers(client, childId, depth + 1, undefined, byParent)));
  return { snapshot, depth, children, ...(execution === 'RUNNING' ? {} : { ended: listedStatus(execution, snapshot.status) }) };
}

/** A member's status: its own while its workflow runs, else how the workflow ended. */
export function memberStatus(member: Pick<TreeMember, 'snapshot' | 'ended'>): ListedSessionStatus {
  return member.ended ?? member.snapshot.status;
}

export function flattenMembers(member: TreeMember): TreeMember[] {
  return [member, ...member.children.flatMap(flattenMembers)];
}

/**
 * What a session is doing, in one phrase: its status, `waiting until <time>` while the wait tool sleeps, or
 * `waiting_for_user: <question>` while a question set it asked waits.
 */
export function statePhrase(snapshot: SessionSnapshot, ended?: ListedSessionStatus): string {
  // A closed workflow waits for nothing, whatever its last snapshot says.
  if (ended) return ended;
  const own = snapshot.pending_questions.find((set) => set.session_id === snapshot.session_id);
  if (own) {
    const [first] = own.questions;
    const more = own.questions.length > 1 ? ` (and ${own.questions.length - 1} more)` : '';
    return `waiting_for_user: ${first?.question ?? 'a question'}${more}`;
  }
  if (snapshot.waiting) return `waiting until ${snapshot.waiting.until}${snapshot.waiting.reason ? ` (${snapshot.waiting.reason})` : ''}`;
  return snapshot.status;
}

/** The tree as lines: `title  [state, mode]  id`, children drawn below their parent. */
export function renderMemberTree(member: TreeMember, prefix = '', last = true, root = true): string[] {
  const { snapshot } = member;
  const label = `${snapshot.title}  [${statePhrase(snapshot, member.ended)}${snapshot.mode ? `, ${snapshot.mode}` : ''}]  ${snapshot.session_id}`;
  const lines = [root ? label : `${prefix}${last ? '└─ ' : '├─ '}${label}`];
  const childPrefix = root ? '' : `${prefix}${last ? '   ' : '│  '}`;
  member.children.forEach((child, index) =>
    lines.push(...renderMemberTree(child, childPrefix, index === member.children.length - 1, false)),
  );
  return lines;
}

/** The tree for --json: each member's id, title, status, state phrase, mode and children. */
export interface MemberNode {
  session_id: string;
  title: string;
  status: ListedSessionStatus;
  state: string;
  mode: SessionSnapshot['mode'];
  children: MemberNode[];
}

export function memberNode(member: TreeMember): MemberNode {
  const { snapshot } = member;
  return {
    session_id: snapshot.session_id,
    title: snapshot.title,
    status: memberStatus(member),
    state: statePhrase(snapshot, member.ended),
    mode: snapshot.mode,
    children: member.children.map(memberNode),
  };
}
