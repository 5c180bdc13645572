import type { ArborClient } from '../client/arbor-client.js';
import { listedStatus, type ListedSessionStatus } from '../client/session-list.js';
import type { SessionSnapshot, SessionStatus } from '../shared/session.js';
import { listedChildren, listTree, type ListedSession } from '../client/access/tree-listing.js';

/** A session of a tree as its own snapshot tells it (not its parent's record), with its depth and its children. */
export interface TreeMember {
  session_id: string;
  title: string;
  mode: SessionSnapshot['mode'];
  /** The member's own live snapshot; undefined when it could not answer (see `unanswered`). */
  snapshot: SessionSnapshot | undefined;
  depth: number;
  children: TreeMember[];
  /**
   * How the member's workflow ended, as `arbor list` says it (Temporal's execution status, read with the snapshot), or
   * undefined while it runs. A workflow closed by someone else (`temporal workflow terminate`, a timeout) answers its
   * snapshot query with the status it had then, `idle` or `waiting until …`: this is what it is.
   */
  ended?: ListedSessionStatus;
  /**
   * Why a sub-agent could not tell its own state (no worker answered its query, its history no longer replays). Its
   * title, mode and `recorded_status` then come from its parent's record (or visibility's listing), its children from
   * visibility: the walk goes on without its answer rather than failing whole.
   */
  unanswered?: string;
  /** The member's status as its parent records it, for a member that could not answer. */
  recorded_status?: SessionStatus;
}

/** A tree member that answered, with its snapshot. */
export type AnsweredMember = TreeMember & { snapshot: SessionSnapshot };

/** What a parent records of a child (or visibility lists of it), for when the child cannot answer itself. */
interface MemberRecord {
  title: string;
  mode: SessionSnapshot['mode'];
  status: SessionStatus | undefined;
  execution: string | undefined;
}

/**
 * Walks the tree below `sessionId` asking each member for its own live snapshot, and Temporal whether it still runs.
 * Each member's children are those it records joined with those visibility lists under it: either may miss one. The
 * session asked for must answer; a member below it that cannot is shown from its parent's record (`unanswered`).
 */
export async function readTreeMembers(client: ArborClient, sessionId: string, depth = 0, known?: SessionSnapshot): Promise<AnsweredMember> {
  const [snapshot, execution] = await Promise.all([known ?? client.session(sessionId).snapshot(), executionStatus(client, sessionId)]);
  const byParent = listedChildren((await listTree(client.temporal, snapshot.root_session_id)) ?? new Map());
  return answeredMember(client, snapshot, execution, depth, byParent);
}

function executionStatus(client: ArborClient, sessionId: string): Promise<string> {
  return client.temporal.workflow
    .getHandle(sessionId)
    .describe()
    .then((description) => description.status.name);
}

async function answeredMember(
  client: ArborClient,
  snapshot: SessionSnapshot,
  execution: string,
  depth: number,
  byParent: ReadonlyMap<string, ListedSession[]>,
): Promise<AnsweredMember> {
  const recorded = new Map(snapshot.children.map((child) => [child.sub_session_id, child]));
  const listed = new Map((byParent.get(snapshot.session_id) ?? []).map((child) => [child.session_id, child]));
  const children = await Promise.all(
    [...new Set([...recorded.keys(), ...listed.keys()])].map((childId) => {
      const own = recorded.get(childId);
      const seen = listed.get(childId);
      const record = {
        title: own?.title ?? seen?.title ?? childId,
        mode: own?.mode ?? null,
        status: own?.status,
        execution: seen?.execution_status,
      };
      return childMember(client, childId, depth + 1, byParent, record);
    }),
  );
  return {
    session_id: snapshot.session_id,
    title: snapshot.title,
    mode: snapshot.mode,
    snapshot,
    depth,
    children,
    ...(execution === 'RUNNING' ? {} : { ended: listedStatus(execution, snapshot.status) }),
  };
}

async function childMember(
  client: ArborClient,
  sessionId: string,
  depth: number,
  byParent: ReadonlyMap<string, ListedSession[]>,
  record: MemberRecord,
): Promise<TreeMember> {
  const execution = executionStatus(client, sessionId);
  try {
    const [snapshot, status] = await Promise.all([client.session(sessionId).snapshot(), execution]);
    return await answeredMember(client, snapshot, status, depth, byParent);
  } catch (error) {
    return unansweredMember(sessionId, depth, byParent, record, await execution.catch(() => record.execution), error);
  }
}

function unansweredMember(
  sessionId: string,
  depth: number,
  byParent: ReadonlyMap<string, ListedSession[]>,
  record: MemberRecord,
  execution: string | undefined,
  error: unknown,
): TreeMember {
  const children = (byParent.get(sessionId) ?? []).map((child) =>
    unansweredMember(
      child.session_id,
      depth + 1,
      byParent,
      { title: child.title, mode: null, status: undefined, execution: child.execution_status },
      child.execution_status,
      new Error(`its parent ${sessionId} could not answer, and it was not asked`),
    ),
  );
  return {
    session_id: sessionId,
    title: record.title,
    mode: record.mode,
    snapshot: undefined,
    depth,
    children,
    unanswered: error instanceof Error ? error.message : String(error),
    ...(record.status ? { recorded_status: record.status } : {}),
    ...(execution && execution !== 'RUNNING' ? { ended: listedStatus(execution, record.status) } : {}),
  };
}

/** A member's status: its own while its workflow runs, else how the workflow ended; `unknown` when neither is known. */
export function memberStatus(member: Pick<TreeMember, 'snapshot' | 'ended' | 'recorded_status'>): ListedSessionStatus | 'unknown' {
  return member.ended ?? member.snapshot?.status ?? member.recorded_status ?? 'unknown';
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

/** The phrase for any member: its own state, or for one that could not answer, what its parent records and why. */
export function memberPhrase(member: TreeMember): string {
  if (member.snapshot) return statePhrase(member.snapshot, member.ended);
  const known = member.ended ?? (member.recorded_status ? `${member.recorded_status} when its parent last heard` : 'state unknown');
  return `${known}; could not answer: ${member.unanswered}`;
}

/** The tree as lines: `title  [state, mode]  id`, children drawn below their parent. */
export function renderMemberTree(member: TreeMember, prefix = '', last = true, root = true): string[] {
  const label = `${member.title}  [${memberPhrase(member)}${member.mode ? `, ${member.mode}` : ''}]  ${member.session_id}`;
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
  /** `unknown` only for a member that could not answer and whose parent records no status for it. */
  status: ListedSessionStatus | 'unknown';
  state: string;
  mode: SessionSnapshot['mode'];
  /** Present when the member could not answer its snapshot query: why (its other fields are its parent's record). */
  unanswered?: string;
  children: MemberNode[];
}

export function memberNode(member: TreeMember): MemberNode {
  return {
    session_id: member.session_id,
    title: member.title,
    status: memberStatus(member),
    state: memberPhrase(member),
    mode: member.mode,
    ...(member.unanswered !== undefined ? { unanswered: member.unanswered } : {}),
    children: member.children.map(memberNode),
  };
}
