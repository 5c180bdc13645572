import type { ArborClient } from '../client/arbor-client.js';
import type { SessionSnapshot, TranscriptEntry } from '../shared/session.js';
import type { QuestionSet } from '../shared/tools/ask-user.js';
import { MemberCache } from './member-cache.js';
import { planOf } from './session-views.js';
import type { FeedItem, TreeFeed } from './tree-feed.js';
import { treeMembers, type ConsoleMember } from './tree-members.js';

const builtMaxAgeMs = 5_000;

/** What a session page shows, in one answer: the tree, the tree's waiting questions, and the selected member. */
export interface TreeView {
  tree: ConsoleMember;
  root: SessionSnapshot;
  questions: QuestionSet[];
  member: { snapshot: SessionSnapshot; transcript: TranscriptEntry[]; plan: ReturnType<typeof planOf> } | null;
}

/**
 * The answers for one watched tree, shared by all its tabs: members are asked only when the tree's feed showed a
 * change of theirs, and a tree built since the last change is served as it is; tabs refreshing at once share one build.
 */
export class TreeViewSource {
  readonly members: MemberCache;
  private built: { version: number; at: number; tree: Promise<ConsoleMember> } | undefined;

  constructor(
    private readonly client: ArborClient,
    private readonly rootId: string,
  ) {
    this.members = new MemberCache({
      snapshot: (id) => client.session(id).snapshot(),
      transcript: (id) => client.session(id).transcript(),
    });
  }

  /** Learns from the feed which members changed. */
  observe(item: FeedItem): void {
    if (item.kind === 'event') this.members.changed(item.session.id);
    else if (item.kind === 'stream' && (item.item.type === 'turn_ended' || item.item.type === 'tool_result'))
      this.members.changed(item.session.id);
    else if (item.kind === 'error' || item.kind === 'reset') this.members.changedAll();
  }

  /**
   * The tree, built again only when a member changed or `builtMaxAgeMs` passed (visibility may list a member the
   * snapshots do not name yet). A tree in which some member could not answer is not kept: the next asks again.
   */
  tree(): Promise<ConsoleMember> {
    const version = this.members.version;
    if (this.built?.version === version && Date.now() - this.built.at < builtMaxAgeMs) return this.built.tree;
    let complete = true;
    const snapshotOf = (id: string) =>
      this.members.snapshot(id).catch(() => {
        complete = false;
        return undefined;
      });
    const tree = treeMembers(this.client.temporal, this.rootId, snapshotOf);
    const built = { version, at: Date.now(), tree };
    this.built = built;
    tree.then(
      () => {
        if (!complete && this.built === built) this.built = undefined;
      },
      () => {
        if (this.built === built) this.built = undefined;
      },
    );
    return tree;
  }

  async view(memberId: string): Promise<TreeView> {
    const [tree, root, member] = await Promise.all([
      this.tree(),
      this.members.snapshot(this.rootId),
      Promise.all([this.members.snapshot(memberId), this.members.transcript(memberId)]),
    ]);
    const [snapshot, transcript] = member;
    return { tree, root, questions: root.pending_questions, member: { snapshot, transcript, plan: planOf(transcript) } };
  }
}

/** The tree-view sources of the trees watched now: one per feed, gone with it. */
export class TreeViewSources {
  private readonly sources = new Map<string, TreeViewSource>();

  constructor(private readonly client: ArborClient) {}

  /** Called as a feed opens: its source learns from it, and closes with it. */
  attach(rootId: string, feed: TreeFeed): void {
    const source = new TreeViewSource(this.client, rootId);
    this.sources.set(rootId, source);
    feed.observe((item) => source.observe(item));
    feed.onClose(() => {
      if (this.sources.get(rootId) === source) this.sources.delete(rootId);
    });
  }

  /** A session changed (an action on it): every watched tree that has it asks it again. */
  changed(sessionId: string): void {
    for (const source of this.sources.values()) source.members.changed(sessionId);
  }

  /** The watched tree's source, or a fresh one (nothing cached) for a tree no tab watches. */
  of(rootId: string): TreeViewSource {
    return this.sources.get(rootId) ?? new TreeViewSource(this.client, rootId);
  }
}
