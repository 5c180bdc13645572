import type { ArborClient } from '../client/arbor-client.js';
import type { SessionTreeNode } from '../client/access/session-tree.js';
import type { SessionSnapshot } from '../shared/session.js';

/** A member of a tree as the console shows it: its place, its status, and what it waits for. */
export interface ConsoleMember {
  session_id: string;
  title: string;
  status: string;
  mode: 'async' | 'sync' | null;
  waiting_for: string | null;
  children: ConsoleMember[];
}

/** What a session waits for, in a few words (null when it waits for nothing: it works, or it has ended). */
export function waitingFor(snapshot: SessionSnapshot): string | null {
  if (snapshot.pending_questions.some((set) => set.session_id === snapshot.session_id)) {
    const set = snapshot.pending_questions.find((candidate) => candidate.session_id === snapshot.session_id)!;
    return set.approval ? `your approval of ${set.approval.tool_name}` : `your answer: ${set.questions.map((q) => q.question).join(' ')}`;
  }
  if (snapshot.waiting) return `a timer until ${snapshot.waiting.until}${snapshot.waiting.reason ? ` (${snapshot.waiting.reason})` : ''}`;
  const running = snapshot.children.filter((child) => child.status === 'running' || child.status === 'waiting_for_user');
  if (snapshot.status === 'idle' && running.length > 0) return `sub-agents: ${running.map((child) => child.title).join(', ')}`;
  if (snapshot.status === 'idle') return 'a message';
  return null;
}

/** The tree of `rootId` with what each member waits for (one snapshot query per member, in parallel). */
export async function treeMembers(client: ArborClient, rootId: string): Promise<ConsoleMember> {
  const tree = await client.session(rootId).tree();
  const visit = async (node: SessionTreeNode): Promise<ConsoleMember> => {
    const [snapshot, children] = await Promise.all([
      client
        .session(node.session_id)
        .snapshot()
        .catch(() => undefined),
      Promise.all(node.children.map(visit)),
    ]);
    return {
      session_id: node.session_id,
      title: node.title,
      status: snapshot?.status ?? node.status,
      mode: node.mode,
      waiting_for: snapshot ? waitingFor(snapshot) : null,
      children,
    };
  };
  return visit(tree);
}
